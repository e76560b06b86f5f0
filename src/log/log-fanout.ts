// The supervisor's side of live logs for pages: a thread that shows logs subscribes once per viewer,
// receives the backlog that viewer asked for, then every new record while at least one of its
// viewers remains. Records are batched per turn of the event loop: one post per thread, not per record.
import type { LogRecord } from './record.js';
import type { LogRing } from './ring.js';

export interface LogFanoutPorts {
  /** The newest `records` for subscription `id` of `thread`, sent once when it subscribes. */
  backlog(thread: string, id: number, records: LogRecord[]): void;
  /** New records for every subscription of `thread`. */
  live(thread: string, records: LogRecord[]): void;
}

export class LogFanout {
  /** thread -> its open subscription ids. */
  private readonly subscriptions = new Map<string, Set<number>>();
  private pending: LogRecord[] = [];
  private flushScheduled = false;
  private readonly stopRing: () => void;

  constructor(
    private readonly ring: LogRing,
    private readonly ports: LogFanoutPorts,
  ) {
    this.stopRing = ring.subscribe((record) => this.onRecord(record));
  }

  subscribe(thread: string, id: number, backlog: number): void {
    let ids = this.subscriptions.get(thread);
    if (ids === undefined) {
      ids = new Set();
      this.subscriptions.set(thread, ids);
    }
    ids.add(id);
    this.ports.backlog(thread, id, backlog > 0 ? this.ring.recent(backlog) : []);
  }

  unsubscribe(thread: string, id: number): void {
    const ids = this.subscriptions.get(thread);
    ids?.delete(id);
    if (ids?.size === 0) this.subscriptions.delete(thread);
  }

  /** A thread that ended has no viewers left; its next run subscribes again. */
  dropThread(thread: string): void {
    this.subscriptions.delete(thread);
  }

  /** Threads that receive live records now. */
  get streamingThreads(): string[] {
    return [...this.subscriptions.keys()];
  }

  close(): void {
    this.stopRing();
    this.subscriptions.clear();
  }

  private onRecord(record: LogRecord): void {
    if (this.subscriptions.size === 0) return;
    this.pending.push(record);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      const records = this.pending;
      this.pending = [];
      for (const thread of this.subscriptions.keys()) this.ports.live(thread, records);
    });
  }
}
