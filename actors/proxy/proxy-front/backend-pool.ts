// Kept-alive HTTP/1.1 connections to one backend, one request at a time on each. Measured against an
// undici Pool in this proxy (benchmarks/agent-proxy.ts), this lean client served about twice the
// requests a second: the proxy's only need is bytes in order with backpressure, not a general client.
import { connect, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import type { Readable } from 'node:stream';
import { MalformedResponse, ResponseParser, type ResponseEvents, type ResponseHead } from './response-parser.js';
import { OutpostError } from '../../../src/errors.js';

export interface BackendRequest {
  method: string;
  path: string;
  /** Flat name, value list; names lower case, hop-by-hop headers already removed. */
  headers: readonly string[];
  /** Streamed with Content-Length when the headers have one, chunked otherwise. */
  body: Readable | null;
}

export interface ExchangeController {
  pause(): void;
  resume(): void;
  abort(): void;
}

export interface ExchangeHandler {
  /** `backend`: the label of the backend the request went to (its pool's). */
  onRequestStart(controller: ExchangeController, backend: string): void;
  onResponseStart(controller: ExchangeController, head: ResponseHead): void;
  /** `chunk` is valid during the call only (it may lie in a read buffer used again): a handler that keeps it copies it. */
  onResponseData(controller: ExchangeController, chunk: Buffer): void;
  onResponseEnd(controller: ExchangeController): void;
  onResponseError(controller: ExchangeController, error: BackendError): void;
}

export class BackendError extends OutpostError {
  override readonly name: string = 'BackendError';
  constructor(
    message: string,
    /**
     * `timeout`: no response head in time (counted from the request's arrival); `failed`: unreachable,
     * reset or malformed; `busy`: every connection is taken and the queue is full.
     */
    readonly kind: 'timeout' | 'failed' | 'busy',
    /**
     * `unreached`: the connection never reached the backend (refused, unreachable, a TLS handshake that
     * failed), so nothing of the request was delivered; `clientGone`: the client's side failed, which
     * says nothing of the backend's health; `noneUp`: no backend of the route was up to be tried.
     */
    readonly details: { unreached?: boolean; clientGone?: boolean; noneUp?: boolean } = {},
  ) {
    super(kind === 'timeout' ? 'ERR_TIMEOUT' : kind === 'busy' ? 'ERR_UNAVAILABLE' : 'ERR_BAD_GATEWAY', message);
  }
}

export interface BackendPoolOptions {
  host: string;
  port: number;
  /** The backend as its route names it, for logs. */
  label: string;
  /** An https:// backend: the name verified (and sent as SNI unless it is an IP address), the CAs, whether it is verified. */
  tls?: { servername?: string; ca?: string; verify: boolean };
  connections: number;
  /** From the request's arrival (queued time included) to the response head. */
  headersTimeoutMs: number;
  /** Requests that may wait for a connection; more are refused at once (`busy`). */
  maxQueued: number;
}

/** A request waiting for a connection. */
interface Queued {
  start: () => void;
  handler: ExchangeHandler;
  /** Date.now() by which it must have its response head. */
  deadline: number;
}

/** Where every plain backend connection of the thread reads into; what is read is used before the next read. */
const readBuffer = Buffer.allocUnsafe(64 * 1024);

/** For the failures reported before a request has a connection: nothing to pause or abort yet. */
const unstarted: ExchangeController = { pause: () => {}, resume: () => {}, abort: () => {} };

/** What `dispatch` returns for a request that is not queued. */
export function nothingToWithdraw(): void {}

/**
 * How often the pool looks for requests past their deadline: a fiftieth of the timeout, between 10 ms
 * and 1 s, so a 504 comes at most that late. One watch per pool instead of a timer armed and cleared
 * per request: such timers are a measurable part of a proxied request's CPU time.
 */
function deadlineSweepMs(headersTimeoutMs: number): number {
  return Math.min(1000, Math.max(10, Math.floor(headersTimeoutMs / 50)));
}

export class BackendPool {
  private readonly idle: BackendConnection[] = [];
  /** Every connection open, idle or carrying a request: what the deadline watch looks at. */
  private readonly connections = new Set<BackendConnection>();
  private open = 0;
  private readonly waiting: Queued[] = [];
  private closed = false;
  private retiring = false;
  /** Runs while requests are queued or in flight; stops at the first sweep that finds none. */
  private deadlineWatch: NodeJS.Timeout | undefined;

  constructor(private readonly options: BackendPoolOptions) {}

  /** Requests waiting for a connection now. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Sends the request on a free connection, or queues it; returns what withdraws it while it waits
   * (its client went away). A full queue fails it at once, and the wait counts toward its deadline.
   */
  dispatch(request: BackendRequest, handler: ExchangeHandler): () => void {
    const deadline = Date.now() + this.options.headersTimeoutMs;
    this.watchDeadlines();
    if (this.open < this.options.connections || this.idle.length > 0) {
      this.start(request, handler, false, deadline);
      return nothingToWithdraw;
    }
    if (this.waiting.length >= this.options.maxQueued) {
      handler.onResponseError(
        unstarted,
        new BackendError(`${this.options.connections} connections busy and ${this.options.maxQueued} requests waiting`, 'busy'),
      );
      return nothingToWithdraw;
    }
    const entry: Queued = { start: () => this.start(request, handler, false, deadline), handler, deadline };
    this.waiting.push(entry);
    return () => {
      const index = this.waiting.indexOf(entry);
      if (index !== -1) this.waiting.splice(index, 1);
    };
  }

  private watchDeadlines(): void {
    if (this.deadlineWatch !== undefined) return;
    this.deadlineWatch = setInterval(() => this.sweepDeadlines(), deadlineSweepMs(this.options.headersTimeoutMs));
  }

  /** Fails what has waited past its deadline: queued requests (oldest first), then those sent without a response head yet. */
  private sweepDeadlines(): void {
    const now = Date.now();
    // Every request waits as long, so the queue is in deadline order.
    while (this.waiting.length > 0 && this.waiting[0]!.deadline <= now) {
      this.waiting.shift()!.handler.onResponseError(unstarted, new BackendError(`no connection free within ${this.options.headersTimeoutMs} ms`, 'timeout'));
    }
    let busy = this.waiting.length > 0;
    for (const connection of this.connections) busy = connection.failIfOverdue(now) || busy;
    if (!busy) this.stopWatchingDeadlines();
  }

  private stopWatchingDeadlines(): void {
    clearInterval(this.deadlineWatch);
    this.deadlineWatch = undefined;
  }

  /**
   * Takes no new request (a reload changed or removed the route): what is queued or in flight
   * finishes on the connections there are, then they close.
   */
  retire(): void {
    this.retiring = true;
    this.closeIfDrained();
  }

  close(): void {
    this.closed = true;
    for (const connection of this.idle.splice(0)) this.discard(connection);
    // What is queued is dropped; what is in flight keeps its deadline (the watch stops once none is left).
    this.waiting.length = 0;
  }

  /** `fresh`: a new connection even when one is idle (the retry after a stale one). */
  private start(request: BackendRequest, handler: ExchangeHandler, fresh: boolean, deadline: number): void {
    const reused = fresh ? undefined : this.idle.pop();
    const connection = reused ?? this.connect();
    connection.carry(new BackendExchange(this, connection, request, handler, deadline, reused !== undefined, this.options.label));
  }

  /** An exchange is over: its connection goes back to the idle list or is closed. */
  exchangeFinished(exchange: BackendExchange, outcome: Outcome): void {
    const { connection } = exchange;
    if (outcome === 'reusable' && !this.closed) this.release(connection);
    else {
      this.discard(connection);
      this.open--;
      this.next();
      this.closeIfDrained();
    }
    // A kept-alive connection the backend closed just before this request went out: one try on a
    // new connection (only a reused connection is found stale, and only before any body was read).
    if (outcome === 'stale') this.start(exchange.request, exchange.handler, true, exchange.deadline);
  }

  private connect(): BackendConnection {
    this.open++;
    const { host, port, tls } = this.options;
    // A plain connection's reads land in the thread's one read buffer, handed straight to the exchange
    // (net's `onread`): no buffer allocated per read, no stream machinery between the socket and the
    // parser. A TLS connection's reads come as 'data' events.
    const socket: Socket =
      tls === undefined
        ? connect({
            host,
            port,
            noDelay: true,
            onread: { buffer: readBuffer, callback: (length): boolean => connection.delivered(readBuffer.subarray(0, length)) },
          })
        : connectTls({
            host,
            port,
            ...(tls.servername === undefined ? {} : { servername: tls.servername }),
            ...(tls.ca === undefined ? {} : { ca: tls.ca }),
            rejectUnauthorized: tls.verify,
            ALPNProtocols: ['http/1.1'],
          });
    if (tls !== undefined) socket.setNoDelay(true);
    socket.setKeepAlive(true, 30_000);
    const connection = new BackendConnection(this, socket, tls === undefined ? 'connect' : 'secureConnect');
    if (tls !== undefined) socket.on('data', (bytes: Buffer) => connection.delivered(bytes));
    this.connections.add(connection);
    return connection;
  }

  private discard(connection: BackendConnection): void {
    this.connections.delete(connection);
    connection.discard();
  }

  /** An idle connection the backend closed, or sent something unasked on. */
  idleConnectionLost(connection: BackendConnection): void {
    const index = this.idle.indexOf(connection);
    if (index !== -1) this.idle.splice(index, 1);
    this.discard(connection);
    this.open--;
    this.next();
  }

  private release(connection: BackendConnection): void {
    connection.rest();
    this.idle.push(connection);
    this.next();
    this.closeIfDrained();
  }

  private closeIfDrained(): void {
    if (this.retiring && !this.closed && this.waiting.length === 0 && this.idle.length === this.open) this.close();
  }

  private next(): void {
    this.waiting.shift()?.start();
  }
}

/**
 * A kept-alive socket to the backend with its listeners added once, when it is made: each event goes
 * to the exchange it carries, or to the pool's watcher while it is idle (the backend closed it or sent
 * something unasked). Adding and removing eight listeners a request would be a measurable part of a
 * proxied request's CPU time.
 */
class BackendConnection {
  private exchange: BackendExchange | undefined;
  /** Idle in the pool: an event on the socket means the connection is lost. */
  private resting = false;
  /** Destroyed: whatever the socket still reports concerns nobody. */
  private discarded = false;
  /** Connected (and, to an https:// backend, its certificate verified): a request may have been delivered. */
  private reached = false;

  /** `reachedOn`: the event after which bytes written reach the backend. */
  constructor(
    private readonly pool: BackendPool,
    readonly socket: Socket,
    reachedOn: 'connect' | 'secureConnect',
  ) {
    socket.once(reachedOn, () => (this.reached = true));
    // Also keeps a late error on a connection being discarded from ending the thread.
    socket.on('error', (error: Error) => this.ended(error.message));
    socket.on('close', () => this.ended('the backend closed the connection'));
    socket.on('end', () => this.ended('the backend closed the connection'));
  }

  /**
   * Bytes the backend sent. They may lie in the thread's read buffer, which the next read overwrites:
   * whatever keeps them past this call copies them (the parser's leftover, a chunk uWS could not take).
   */
  delivered(bytes: Buffer): boolean {
    if (this.exchange !== undefined) this.exchange.received(bytes);
    else this.idleEvent();
    return true;
  }

  carry(exchange: BackendExchange): void {
    this.resting = false;
    this.exchange = exchange;
    exchange.send();
  }

  /** Fails its exchange if that is past its deadline without a response head; true while it carries one still waiting. */
  failIfOverdue(now: number): boolean {
    return this.exchange !== undefined && this.exchange.failIfOverdue(now);
  }

  /** The exchange is over: the socket carries nothing until the pool hands it another. */
  released(exchange: BackendExchange): void {
    if (this.exchange === exchange) this.exchange = undefined;
  }

  /** Idle in the pool, which is told once if the backend closes it or sends something meanwhile. */
  rest(): void {
    // Paused by the last exchange for a slow client; nothing more of that response is coming.
    this.socket.resume();
    this.resting = true;
  }

  discard(): void {
    this.discarded = true;
    this.exchange = undefined;
    this.resting = false;
    this.socket.destroy();
  }

  private ended(message: string): void {
    if (this.exchange !== undefined) this.exchange.lost(message, this.reached);
    else this.idleEvent();
  }

  private idleEvent(): void {
    if (!this.resting) return;
    this.resting = false;
    if (!this.discarded) this.pool.idleConnectionLost(this);
  }
}

type Outcome = 'reusable' | 'closed' | 'stale';

/** The parser's events are the exchange's own methods: no closures made per request. */
class BackendExchange implements ExchangeController, ResponseEvents {
  private readonly parser: ResponseParser;
  private settled = false;
  private responseStarted = false;
  private bodySent = false;
  private bodyStarted = false;
  private keepAlive = false;
  private responseDone = false;
  private pausedByHandler = false;
  private readonly socket: Socket;

  constructor(
    /** Told when the exchange is over, with what may become of its connection. */
    private readonly pool: BackendPool,
    readonly connection: BackendConnection,
    readonly request: BackendRequest,
    readonly handler: ExchangeHandler,
    /** Date.now() by which the response head must have come. */
    readonly deadline: number,
    /** On a connection an earlier exchange used: it may have gone stale meanwhile. */
    private readonly reused: boolean,
    /** The backend's label, for the handler and the errors. */
    private readonly label: string,
  ) {
    this.socket = connection.socket;
    this.parser = new ResponseParser(this, request.method === 'HEAD');
  }

  head(head: ResponseHead): void {
    this.responseStarted = true;
    this.keepAlive = head.keepAlive;
    this.handler.onResponseStart(this, head);
  }

  data(chunk: Buffer): boolean {
    this.handler.onResponseData(this, chunk);
    return !this.pausedByHandler;
  }

  end(): void {
    this.responseDone = true;
    this.maybeComplete();
  }

  /** Called by the pool's deadline watch; true while the response head is still awaited before the deadline. */
  failIfOverdue(now: number): boolean {
    if (this.settled || this.responseStarted) return false;
    if (now < this.deadline) return true;
    this.fail(new BackendError('no response head before the deadline', 'timeout'), 'closed');
    return false;
  }

  send(): void {
    const { socket, request } = this;
    this.handler.onRequestStart(this, this.label);
    if (this.settled) return;

    let head = `${request.method} ${request.path} HTTP/1.1\r\n`;
    let hasLength = false;
    for (let index = 0; index < request.headers.length; index += 2) {
      const name = request.headers[index]!;
      if (name === 'content-length') hasLength = true;
      head += `${name}: ${request.headers[index + 1]!}\r\n`;
    }
    const chunked = request.body !== null && !hasLength;
    if (chunked) head += 'transfer-encoding: chunked\r\n';
    // One byte a code unit: the method, target and fields were checked to hold nothing above U+00FF,
    // no CR, LF or NUL (forwardable-request.ts), and obs-text is already in its wire form.
    socket.write(`${head}\r\n`, 'latin1');
    if (request.body === null) {
      this.bodySent = true;
      return;
    }
    const body = request.body;
    body.on('data', (chunk: Buffer) => {
      this.bodyStarted = true;
      // Every write is queued whatever it returns; the last one's answer says whether to wait for 'drain'.
      let more = true;
      for (const part of chunked ? [`${chunk.length.toString(16)}\r\n`, chunk, '\r\n'] : [chunk]) more = socket.write(part);
      if (!more) {
        body.pause();
        socket.once('drain', () => body.resume());
      }
    });
    body.once('end', () => {
      if (chunked) socket.write('0\r\n\r\n');
      this.bodySent = true;
      this.maybeComplete();
    });
    body.once('error', () => this.fail(new BackendError('the client went away during the upload', 'failed', { clientGone: true }), 'closed'));
  }

  /** What the backend sent while this exchange has the connection. */
  received(bytes: Buffer): void {
    try {
      this.parser.feed(bytes);
    } catch (error) {
      this.fail(new BackendError(error instanceof MalformedResponse ? `malformed response: ${error.message}` : String(error), 'failed'), 'closed');
    }
  }

  /** Hands the socket back: what it reports from now on is no longer this exchange's. */
  private settle(outcome: Outcome): void {
    this.settled = true;
    this.connection.released(this);
    this.pool.exchangeFinished(this, outcome);
  }

  pause(): void {
    if (this.settled) return;
    this.pausedByHandler = true;
    this.socket.pause();
  }

  resume(): void {
    if (!this.pausedByHandler || this.settled) return;
    this.pausedByHandler = false;
    this.socket.resume();
    // Bytes read before the pause are parsed on the next turn, outside the caller's callback.
    setImmediate(() => {
      if (this.settled) return;
      try {
        this.parser.resume();
      } catch (error) {
        this.fail(new BackendError(`malformed response: ${String(error)}`, 'failed'), 'closed');
      }
    });
  }

  abort(): void {
    if (this.settled) return;
    this.request.body?.destroy();
    this.settle('closed');
  }

  private maybeComplete(): void {
    if (this.settled || !this.responseDone) return;
    // A response that ends before the request body was all sent leaves the connection mid-request.
    if (!this.bodySent) this.request.body?.destroy();
    this.settle(this.bodySent && this.keepAlive ? 'reusable' : 'closed');
    this.handler.onResponseEnd(this);
  }

  /** The connection failed or ended while this exchange has it; `reached`: it had been connected. */
  lost(message: string, reached: boolean): void {
    if (this.settled) return;
    if (this.parser.finish()) return;
    const stale = this.reused && !this.responseStarted && !this.bodyStarted;
    if (stale) return this.settle('stale');
    this.fail(new BackendError(`${this.label}: ${message}`, 'failed', { unreached: !reached }), 'closed');
  }

  private fail(error: BackendError, outcome: Outcome): void {
    if (this.settled) return;
    this.request.body?.destroy();
    this.settle(outcome);
    this.handler.onResponseError(this, error);
  }
}
