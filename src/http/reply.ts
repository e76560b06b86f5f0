import { STATUS_CODES } from 'node:http';
import type { HttpResponse, RecognizedString } from 'uWebSockets.js';
import { toOutpostError } from '../errors.js';
import type { Logger } from '../log/record.js';
import { expiredCookie, serializeCookie, type CookieOptions } from './cookies.js';
import { HttpRefusal } from './refusal.js';
import { openBodyStream, streamSizedBody, type BodyStream, type ChunkAt } from './response-stream.js';

export type Headers = Readonly<Record<string, string>>;
/**
 * Headers as name/value pairs, for hot paths: a pair given as Buffers is handed to uWS as bytes, with
 * no string to encode on every answer (see `prepareHeaders`). Pairs may repeat a name (Set-Cookie).
 */
export type HeaderList = readonly (readonly [RecognizedString, RecognizedString])[];

export const jsonType = 'application/json; charset=utf-8';
export const textType = 'text/plain; charset=utf-8';

export interface ReplyOptions {
  /** The request is a HEAD: every answer is its status and headers, with the GET body's length and no body. */
  head: boolean;
  /** Written on every answer (CORS on the routes that send it). */
  defaultHeaders: Headers;
  /** Called once, when the answer is complete or the client has gone (499). */
  onFinish: (status: number) => void;
  /** Where failures of handlers are logged. */
  log: Logger | undefined;
}

/**
 * The answering side of one request: knows whether the client went away and answers at most once.
 * Every write is corked, so an answer given after an await goes out in one syscall. Sites never see
 * the uWS response: bodies in pieces go through `stream` (known length, backpressure) and
 * `openStream` (event streams).
 */
export class Reply {
  private clientGone = false;
  private answered = false;
  private done = false;
  private readonly abortListeners: (() => void)[] = [];
  private readonly finishListeners: ((status: number) => void)[] = [];
  /** Told the status just before an answer is written; made only when a route asks (see `onAnswer`). */
  private answerListeners: ((status: number) => void)[] | undefined;
  /** Set-Cookie values for the next answer; made only when a route sets one (most never do). */
  private cookies: string[] | undefined;
  private sentBytes = 0;
  status = 0;

  constructor(
    private readonly res: HttpResponse,
    private readonly options: ReplyOptions,
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

  /** True once the answer is complete or the client has gone; `status` is then final. */
  /** Body bytes of the answer (its announced length for a HEAD, 0 for an open-ended stream); for the front's metrics. */
  get bodyBytes(): number {
    return this.sentBytes;
  }

  get finished(): boolean {
    return this.done;
  }

  /** True when the request is a HEAD: the answer's body is left out (its length is still given). */
  get head(): boolean {
    return this.options.head;
  }

  onAbort(listener: () => void): void {
    if (this.clientGone) listener();
    else this.abortListeners.push(listener);
  }

  /** Called with the final status once the answer is complete (499 when the client went first). */
  onFinish(listener: (status: number) => void): void {
    if (this.done) listener(this.status);
    else this.finishListeners.push(listener);
  }

  /**
   * Called with the status just before the answer is written: the last moment the request may be
   * asked about (its address), since uWS forbids touching a response once it is answered.
   */
  onAnswer(listener: (status: number) => void): void {
    (this.answerListeners ??= []).push(listener);
  }

  /** Adds a `Set-Cookie` to the answer about to be given (HttpOnly, SameSite=Strict, Secure, Path=/ unless told). */
  setCookie(name: string, value: string, options?: CookieOptions): void {
    (this.cookies ??= []).push(serializeCookie(name, value, options));
  }

  /** Adds a `Set-Cookie` that makes the browser drop `name` (give the path it was set with). */
  clearCookie(name: string, options?: Omit<CookieOptions, 'maxAge'>): void {
    (this.cookies ??= []).push(expiredCookie(name, options));
  }

  send(status: number, body: RecognizedString, headers: Headers | HeaderList = {}, closeConnection = false): void {
    if (this.closed) return;
    this.answering(status);
    this.sentBytes = byteLength(body);
    this.res.cork(() => {
      this.writeHead(status, headers);
      if (this.options.head) this.endHead(this.sentBytes);
      else this.res.end(body, closeConnection);
    });
    this.finish(status);
  }

  json(status: number, value: unknown, headers: Headers = {}): void {
    this.send(status, JSON.stringify(value), { 'Content-Type': jsonType, ...headers });
  }

  text(status: number, text: string, headers: Headers = {}): void {
    this.send(status, text, { 'Content-Type': textType, ...headers });
  }

  /**
   * Answers an error as `{"error": "..."}` with the status of its code (and the headers of an
   * HttpRefusal); internal details stay in the log. The connection is closed after a body that was not
   * read to its end (413, or an early refusal).
   */
  error(error: unknown, closeConnection?: boolean): void {
    const coded = toOutpostError(error);
    if (coded.code === 'ERR_INTERNAL') {
      this.options.log?.error('request failed', { error: coded.message, stack: error instanceof Error ? (error.stack ?? null) : null });
    }
    const message = coded.code === 'ERR_INTERNAL' ? 'internal error' : coded.message;
    const headers = error instanceof HttpRefusal ? error.headers : {};
    this.send(
      coded.status,
      JSON.stringify({ error: message }),
      { 'Content-Type': jsonType, ...headers },
      closeConnection ?? coded.code === 'ERR_BODY_TOO_LARGE',
    );
  }

  /**
   * Answers with a body of `totalSize` bytes written as the client takes them (uWS backpressure):
   * `chunkAt(offset)` gives the bytes from `offset` on (any length; the excess past `totalSize` is
   * dropped). It is not called for a HEAD, nor after the client has gone.
   */
  stream(status: number, headers: Headers, totalSize: number, chunkAt: ChunkAt): void {
    if (this.closed) return;
    this.answering(status);
    this.answered = true;
    this.status = status;
    this.sentBytes = totalSize;
    if (this.options.head) {
      this.res.cork(() => {
        this.writeHead(status, headers);
        this.endHead(totalSize);
      });
      this.finish(status);
      return;
    }
    this.res.cork(() => this.writeHead(status, headers));
    streamSizedBody(
      this.res,
      totalSize,
      chunkAt,
      () => this.clientGone,
      () => this.finish(status),
    );
  }

  /**
   * Writes status and headers now and returns the body's writer, for answers of unknown length that
   * stay open (event streams). For a HEAD the answer ends with the headers and the writer is closed.
   */
  openStream(status: number, headers: Headers): BodyStream {
    const alreadyClosed = this.closed;
    if (!alreadyClosed) this.answering(status);
    this.answered = true;
    this.status = status;
    if (!alreadyClosed) this.res.cork(() => this.writeHead(status, headers));
    const ended = alreadyClosed || this.options.head;
    if (this.options.head && !alreadyClosed) this.res.cork(() => this.endHead(undefined));
    return openBodyStream(
      this.res,
      ended,
      (listener) => this.onAbort(listener),
      () => this.finish(status),
    );
  }

  /**
   * Ends a HEAD answer after its headers, saying how long the GET body is. uWS 20's
   * `endWithoutBody(length)` leaves the response unfinished, and the connection's next request then
   * drops it (uNetworking/uWebSockets.js#739: "only endWithoutBody() is implemented"), so the length
   * goes in as a header. A HEAD carries no body to skip, so its connection is always kept.
   */
  private endHead(contentLength: number | undefined): void {
    if (contentLength !== undefined) this.res.writeHeader('Content-Length', String(contentLength));
    this.res.endWithoutBody();
  }

  private answering(status: number): void {
    if (this.answerListeners === undefined) return;
    for (const listener of this.answerListeners.splice(0)) listener(status);
  }

  private writeHead(status: number, headers: Headers | HeaderList): void {
    this.res.writeStatus(statusLine(status));
    for (const [name, value] of Object.entries(this.options.defaultHeaders)) this.res.writeHeader(name, value);
    for (const [name, value] of isHeaderList(headers) ? headers : Object.entries(headers)) this.res.writeHeader(name, value);
    if (this.cookies === undefined) return;
    for (const cookie of this.cookies) this.res.writeHeader('Set-Cookie', cookie);
    this.cookies = undefined;
  }

  private finish(status: number): void {
    this.answered = true;
    if (this.done) return;
    this.done = true;
    this.status = status;
    this.options.onFinish(status);
    for (const listener of this.finishListeners.splice(0)) listener(status);
  }
}

function isHeaderList(headers: Headers | HeaderList): headers is HeaderList {
  return Array.isArray(headers);
}

function byteLength(body: RecognizedString): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
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
