// Server-Sent Events (https://html.spec.whatwg.org/multipage/server-sent-events.html) over a uWS
// response: heartbeats keep proxies from closing an idle stream, and a client that stops reading is
// dropped once too much is queued for it rather than growing memory without bound.
import type { Reply } from './reply.js';
import type { HttpServer } from './server.js';

export interface EventStreamOptions {
  heartbeatMs?: number;
  /** Bytes that may wait for a slow client before the stream is closed. */
  maxQueuedBytes?: number;
  /** Milliseconds a reconnecting browser waits (the `retry:` field). */
  retryMs?: number;
}

export class EventStream {
  private queuedBytes = 0;
  private open = true;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly closeListeners: (() => void)[] = [];
  private readonly unregister: () => void;

  constructor(
    private readonly reply: Reply,
    server: HttpServer,
    private readonly options: EventStreamOptions = {},
  ) {
    reply.beginStream(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
    reply.res.onWritable(() => {
      this.queuedBytes = 0;
      return true;
    });
    reply.onAbort(() => this.closed());
    this.unregister = server.addStream(() => this.close());
    this.heartbeat = setInterval(() => this.write(': heartbeat\n\n'), options.heartbeatMs ?? 15_000);
    this.write(`retry: ${options.retryMs ?? 3000}\n\n`);
  }

  get isOpen(): boolean {
    return this.open;
  }

  /** Sends one event; `data` may span lines. */
  send(data: string, event?: string, id?: string): void {
    let frame = '';
    if (event !== undefined) frame += `event: ${event}\n`;
    if (id !== undefined) frame += `id: ${id}\n`;
    for (const line of data.split('\n')) frame += `data: ${line}\n`;
    this.write(`${frame}\n`);
  }

  onClose(listener: () => void): void {
    if (this.open) this.closeListeners.push(listener);
    else listener();
  }

  close(): void {
    if (!this.open) return;
    this.reply.res.cork(() => this.reply.res.end());
    this.closed();
  }

  private write(text: string): void {
    if (!this.open) return;
    let accepted = true;
    this.reply.res.cork(() => {
      accepted = this.reply.res.write(text);
    });
    if (accepted) return;
    this.queuedBytes += Buffer.byteLength(text);
    if (this.queuedBytes > (this.options.maxQueuedBytes ?? 1024 * 1024)) this.close();
  }

  private closed(): void {
    if (!this.open) return;
    this.open = false;
    clearInterval(this.heartbeat);
    this.unregister();
    this.reply.endStream();
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}
