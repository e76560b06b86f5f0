import { STATUS_CODES } from 'node:http';
import type { HttpResponse, RecognizedString } from 'uWebSockets.js';
import { toOutpostError } from '../errors.js';
import type { Logger } from '../log/record.js';

export type Headers = Readonly<Record<string, string>>;
/**
 * Headers as name/value pairs, for hot paths: a pair given as Buffers is handed to uWS as bytes, with
 * no string to encode on every answer (see `prepareHeaders`).
 */
export type HeaderList = readonly (readonly [RecognizedString, RecognizedString])[];

export const jsonType = 'application/json; charset=utf-8';
export const textType = 'text/plain; charset=utf-8';

/**
 * The answering side of one request: knows whether the client went away and answers at most once.
 * Every write is corked, so an answer given after an await goes out in one syscall.
 */
export class Reply {
  private clientGone = false;
  private answered = false;
  private readonly abortListeners: (() => void)[] = [];
  status = 0;

  constructor(
    readonly res: HttpResponse,
    private readonly onFinish: (status: number) => void,
    private readonly defaultHeaders: Headers = {},
    private readonly log?: Logger,
  ) {
    res.onAborted(() => {
      this.clientGone = true;
      for (const listener of this.abortListeners.splice(0)) listener();
      this.finish(499);
    });
  }

  /** True once the client has gone away. */
  get aborted(): boolean {
    return this.clientGone;
  }

  /** True once the client has gone or an answer was given: nothing more may be written. */
  get closed(): boolean {
    return this.clientGone || this.answered;
  }

  onAbort(listener: () => void): void {
    if (this.clientGone) listener();
    else this.abortListeners.push(listener);
  }

  send(status: number, body: RecognizedString, headers: Headers | HeaderList = {}, closeConnection = false): void {
    if (this.closed) return;
    this.res.cork(() => {
      this.res.writeStatus(statusLine(status));
      for (const [name, value] of Object.entries(this.defaultHeaders)) this.res.writeHeader(name, value);
      for (const [name, value] of isHeaderList(headers) ? headers : Object.entries(headers)) this.res.writeHeader(name, value);
      this.res.end(body, closeConnection);
    });
    this.finish(status);
  }

  json(status: number, value: unknown, headers: Headers = {}): void {
    this.send(status, JSON.stringify(value), { 'Content-Type': jsonType, ...headers });
  }

  text(status: number, text: string, headers: Headers = {}): void {
    this.send(status, text, { 'Content-Type': textType, ...headers });
  }

  /** Answers an error as `{"error": "..."}` with the status of its code; internal details stay in the log. */
  error(error: unknown): void {
    const coded = toOutpostError(error);
    if (coded.code === 'ERR_INTERNAL') {
      this.log?.error('request failed', { error: coded.message, stack: error instanceof Error ? (error.stack ?? null) : null });
    }
    const message = coded.code === 'ERR_INTERNAL' ? 'internal error' : coded.message;
    const closeConnection = coded.code === 'ERR_BODY_TOO_LARGE';
    this.send(coded.status, JSON.stringify({ error: message }), { 'Content-Type': jsonType }, closeConnection);
  }

  /** Writes status and headers for a response whose body follows in pieces (streams, downloads). */
  beginStream(status: number, headers: Headers): void {
    if (this.closed) return;
    this.answered = true;
    this.status = status;
    this.res.cork(() => {
      this.res.writeStatus(statusLine(status));
      for (const [name, value] of Object.entries(this.defaultHeaders)) this.res.writeHeader(name, value);
      for (const [name, value] of Object.entries(headers)) this.res.writeHeader(name, value);
    });
  }

  /** Marks a streamed response as complete (its last byte written or the connection closed). */
  endStream(): void {
    this.finish(this.status);
  }

  private finished = false;

  private finish(status: number): void {
    this.answered = true;
    if (this.finished) return;
    this.finished = true;
    this.status = status;
    this.onFinish(status);
  }
}

function isHeaderList(headers: Headers | HeaderList): headers is HeaderList {
  return Array.isArray(headers);
}

const statusLines = new Map<number, Buffer>();

/** `200 OK` and the like, encoded once per status. */
export function statusLine(status: number): Buffer {
  let line = statusLines.get(status);
  if (line === undefined) {
    line = Buffer.from(`${status} ${STATUS_CODES[status] ?? 'Unknown'}`, 'latin1');
    statusLines.set(status, line);
  }
  return line;
}

/** Encodes constant headers once, so that answering with them copies bytes instead of encoding strings. */
export function prepareHeaders(headers: Headers): HeaderList {
  return Object.entries(headers).map(([name, value]) => [Buffer.from(name, 'latin1'), Buffer.from(value, 'utf8')] as const);
}
