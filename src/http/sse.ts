// Server-Sent Events (https://html.spec.whatwg.org/multipage/server-sent-events.html) on a Reply:
// heartbeats keep proxies from closing an idle stream, a client that stops reading is dropped once
// too much is queued for it rather than growing memory without bound, and a reconnecting client's
// `Last-Event-ID` is kept so the site can replay what it missed (see event-history.ts).
import type { EventHistory } from './event-history.js';
import type { BodyStream } from './response-stream.js';
import type { Reply } from './reply.js';
import type { RequestInfo } from './request.js';
import type { HttpServer } from './server.js';

export interface EventStreamOptions {
  heartbeatMs?: number;
  /** Bytes that may wait for a slow client before the stream is closed. */
  maxQueuedBytes?: number;
  /** Milliseconds a reconnecting browser waits (the `retry:` field). */
  retryMs?: number;
}

/** An open event stream; constructing one throws a 503 HttpRefusal when the front has its maximum of streams open. */
export class EventStream {
  /** The id of the last event the client saw, from its `Last-Event-ID` header when it reconnects. */
  readonly lastEventId: string | undefined;
  private queuedBytes = 0;
  private readonly body: BodyStream;
  private readonly heartbeat: NodeJS.Timeout | undefined;
  private readonly unregister: () => void = () => {};

  constructor(
    request: Pick<RequestInfo<unknown, unknown>, 'headers'>,
    reply: Reply,
    server: HttpServer,
    private readonly options: EventStreamOptions = {},
  ) {
    this.lastEventId = request.headers.get('last-event-id');
    // Thrown before anything is written: the route's handler fails, and the router answers the refusal.
    server.assertStreamRoom();
    this.body = reply.openStream(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
    // A HEAD, or a client that left before the stream opened: nothing more to do.
    if (!this.body.open) return;
    this.body.onDrain(() => {
      this.queuedBytes = 0;
    });
    this.unregister = server.addStream(() => this.close());
    this.heartbeat = setInterval(() => this.write(': heartbeat\n\n'), options.heartbeatMs ?? 15_000);
    this.body.onClose(() => {
      clearInterval(this.heartbeat);
      this.unregister();
    });
    this.write(`retry: ${options.retryMs ?? 3000}\n\n`);
  }

  get isOpen(): boolean {
    return this.body.open;
  }

  /** Sends one event; `data` may span lines. */
  send(data: string, event?: string, id?: string): void {
    let frame = '';
    if (event !== undefined) frame += `event: ${event}\n`;
    if (id !== undefined) frame += `id: ${id}\n`;
    for (const line of data.split('\n')) frame += `data: ${line}\n`;
    this.write(`${frame}\n`);
  }

  /**
   * Sends the events the client missed since its `Last-Event-ID`. False when it has none to resume
   * from (a first connection, or an id older than the history): the site then sends the full state.
   */
  resume(history: EventHistory): boolean {
    if (this.lastEventId === undefined) return false;
    const missed = history.after(this.lastEventId);
    if (missed === undefined) return false;
    for (const event of missed) this.send(event.data, event.event, event.id);
    return true;
  }

  onClose(listener: () => void): void {
    this.body.onClose(listener);
  }

  close(): void {
    this.body.end();
  }

  private write(text: string): void {
    if (!this.body.open || this.body.write(text)) return;
    this.queuedBytes += Buffer.byteLength(text);
    if (this.queuedBytes > (this.options.maxQueuedBytes ?? 1024 * 1024)) this.close();
  }
}
