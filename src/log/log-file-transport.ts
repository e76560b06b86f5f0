// The log file as a winston transport. winston's own File transport drops a write error on the floor
// (its stream's 'error' goes to a debug hook), so a log on a full or vanished disk would stay silently
// empty. Here the first failure is reported once on stderr and the file is let go: the
// service goes on, logging to the console and the ring buffer.
import { createWriteStream, type WriteStream } from 'node:fs';
import winston from 'winston';

// winston exports its transport base class as `Transport`; its type declarations call it `transport`.
const TransportBase = (winston as unknown as { Transport: new (options: { format: winston.Logform.Format }) => winston.transport }).Transport;

/** Where winston's format leaves the finished line (triple-beam's MESSAGE). */
const formatted = Symbol.for('message');

export class LogFileTransport extends TransportBase {
  private stream: WriteStream | undefined;

  constructor(
    readonly path: string,
    format: winston.Logform.Format,
    private readonly onFailure: (error: NodeJS.ErrnoException) => void,
  ) {
    super({ format });
    // The folder and the file were made (0700, 0600) and opened once at start (src/cli/log-file.ts).
    this.stream = createWriteStream(path, { flags: 'a', mode: 0o600 });
    this.stream.on('error', (error) => this.fail(error));
  }

  override log(info: Record<string | symbol, unknown>, next: () => void): void {
    this.stream?.write(`${String(info[formatted])}\n`);
    next();
  }

  override _final(callback: (error?: Error | null) => void): void {
    const stream = this.stream;
    if (stream === undefined) return callback();
    stream.once('error', () => callback());
    stream.end(() => callback());
  }

  private fail(error: NodeJS.ErrnoException): void {
    const stream = this.stream;
    if (stream === undefined) return;
    this.stream = undefined;
    stream.destroy();
    this.onFailure(error);
  }
}
