// An actor's side of live logs: each viewer (a page's log stream) subscribes with the backlog it
// wants and receives it before any newer record; the supervisor stops forwarding once the last
// viewer of this thread has left.
import type { LogRecord } from './record.js';
import type { LogListener } from './ring.js';

export interface LogViewerPorts {
  subscribe(id: number, backlog: number): void;
  unsubscribe(id: number): void;
}

interface Viewer {
  listener: LogListener;
  /** False until its backlog arrived: records before it are in the backlog already. */
  live: boolean;
}

export class LogViewers {
  private readonly viewers = new Map<number, Viewer>();
  private nextId = 1;

  constructor(private readonly ports: LogViewerPorts) {}

  /** Streams the newest `backlog` records, then every new one; returns the unsubscribe function. */
  subscribe(listener: LogListener, backlog: number): () => void {
    const id = this.nextId++;
    this.viewers.set(id, { listener, live: false });
    this.ports.subscribe(id, backlog);
    return () => {
      if (this.viewers.delete(id)) this.ports.unsubscribe(id);
    };
  }

  onBacklog(id: number, records: readonly LogRecord[]): void {
    const viewer = this.viewers.get(id);
    if (viewer === undefined) return;
    viewer.live = true;
    for (const record of records) viewer.listener(record);
  }

  onLive(records: readonly LogRecord[]): void {
    for (const viewer of this.viewers.values()) {
      if (!viewer.live) continue;
      for (const record of records) viewer.listener(record);
    }
  }

  get count(): number {
    return this.viewers.size;
  }
}
