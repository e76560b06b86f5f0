import type { LogRecord } from './record.js';

export type LogListener = (record: LogRecord) => void;

/**
 * The last `capacity` log records, for pages that show live logs: a new subscriber reads `recent()`
 * for the backlog and then receives every record as it is pushed.
 */
export class LogRing {
  private readonly records: LogRecord[] = [];
  private start = 0;
  private readonly listeners = new Set<LogListener>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('LogRing capacity must be a positive integer');
  }

  push(record: LogRecord): void {
    if (this.records.length < this.capacity) {
      this.records.push(record);
    } else {
      this.records[this.start] = record;
      this.start = (this.start + 1) % this.capacity;
    }
    for (const listener of this.listeners) listener(record);
  }

  /** The newest `limit` records, oldest first. */
  recent(limit = this.capacity): LogRecord[] {
    const ordered = this.records.slice(this.start).concat(this.records.slice(0, this.start));
    return limit >= ordered.length ? ordered : ordered.slice(ordered.length - limit);
  }

  /** Calls `listener` for every record pushed from now on; returns the unsubscribe function. */
  subscribe(listener: LogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.records.length;
  }
}
