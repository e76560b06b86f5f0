// One HTTP/1.1 exchange through the proxy: the client's request streams to the backend over a kept-alive
// connection of the route's BackendPool, the backend's response streams back, and each side's
// backpressure pauses the other (a slow client pauses the backend read; a slow backend pauses the
// client's upload).
import { Readable } from 'node:stream';
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import type { Logger } from '../../../src/log/record.js';
import { nothingToWithdraw, type BackendError, type ExchangeController, type ExchangeHandler } from './backend-pool.js';
import type { Upstream, Withdrawable } from './upstream.js';
import type { ResponseHead } from './response-parser.js';
import type { RouteFigures } from './figures.js';
import { backendRequestHeaders, clientAddress, clientResponseHeaders, errorPage, hostName, pathAndQuery, type ClientSide } from './logic.js';
import { dropAfterRefusal, refuseMalformed } from '../../../src/http/malformed.js';
import { canonicalAddress } from '../../../src/http/rate-limit.js';
import { forwardableRequest } from './forwardable-request.js';
import { randomUUID } from 'node:crypto';
import type { AccessLog, AccessRecord } from './access-log.js';

/** Upload bytes buffered before the client's socket is paused. */
const uploadHighWaterMark = 256 * 1024;

export interface Route {
  domain: string;
  /** The route's backends, with their pools and health. */
  upstream: Upstream;
  /** Changes when the backends or their settings do (route-table.ts). */
  upstreamKey: string;
  /** The Strict-Transport-Security value sent with every answer of the route, if any. */
  hsts?: string;
  /** An upload slower than this is dropped: fewer than `bytesPerSecond` on average over a window of `windowMs` in which the proxy never paused it. */
  uploadFloor: { bytesPerSecond: number; windowMs: number };
  /** What the route's answers are counted in; absent when metrics are off. */
  figures?: RouteFigures;
  /** Canonical addresses (config `trusted_proxies`) whose X-Forwarded-For and X-Real-IP are passed on. */
  trustedProxies: ReadonlySet<string>;
}

/**
 * The client as its backend is told of it. `incoming` is the checked head (forwardable-request.ts),
 * so the Host passed on is in its wire form.
 */
export function clientSideOf(res: HttpResponse, incoming: readonly (readonly [string, string])[], route: Route): ClientSide {
  const address = clientAddress(Buffer.from(res.getRemoteAddressAsText()).toString('latin1'));
  let host = '';
  for (const [name, value] of incoming) {
    if (name === 'host') {
      host = value;
      break;
    }
  }
  return { address, trusted: route.trustedProxies.size > 0 && route.trustedProxies.has(canonicalAddress(address)), host: host === '' ? route.domain : host };
}

/** What a client whose request found every backend connection busy and the queue full is told to wait, in seconds. */
const busyRetryAfterSeconds = 5;

/** What a front hands each request it forwards. */
export interface ForwardContext {
  log: Logger;
  /** Where each request is logged; none when the access log is off. */
  accessLog?: AccessLog;
}

/** Forwards the request uWS handed over; reads everything it needs from `req` before returning. */
export function forwardRequest(res: HttpResponse, req: HttpRequest, route: Route, context: ForwardContext, settled: () => void): void {
  if (dropAfterRefusal(res)) return settled();
  const arrivedAt = performance.now();
  const method = req.getCaseSensitiveMethod();
  const path = pathAndQuery(req.getUrl(), req.getQuery());
  const incoming: [string, string][] = [];
  req.forEach((name, value) => incoming.push([name, value]));
  const framing = forwardableRequest(method, path, incoming);
  if (!framing.ok) {
    settled();
    route.figures?.answered(400);
    return refuseMalformed(res, framing.problem);
  }
  const client = clientSideOf(res, incoming, route);
  const { accessLog } = context;
  const requestId = accessLog === undefined ? undefined : requestIdOf(incoming, client.trusted);
  const headers = backendRequestHeaders(incoming, client, requestId === undefined ? {} : { requestId });
  // The length the listener enforced, never the client's header as it came (RFC 9112 section 6.3).
  if (framing.body.kind === 'length') headers.push('content-length', String(framing.body.length));
  const hasBody = framing.body.kind === 'chunked' || (framing.body.kind === 'length' && framing.body.length > 0);
  const access = accessLog === undefined ? undefined : { log: accessLog, record: accessRecord(incoming, { client, method, path, requestId: requestId! }) };
  const exchange = new Exchange(res, {
    route,
    method,
    log: context.log,
    clientHost: client.host,
    settled,
    arrivedAt,
    ...(access === undefined ? {} : { access }),
  });
  const body = hasBody ? exchange.readUpload() : null;
  exchange.dispatched = route.upstream.dispatch({ method, path, headers, body }, exchange);
}

/** A trusted proxy's X-Request-Id (a visible-ASCII value of at most 200 characters) is kept; any other request gets a new one. */
function requestIdOf(incoming: readonly (readonly [string, string])[], trusted: boolean): string {
  if (trusted) {
    const given = incoming.find(([name]) => name === 'x-request-id')?.[1];
    if (given !== undefined && /^[\x21-\x7e]{1,200}$/.test(given)) return given;
  }
  return randomUUID();
}

/** What the access log says of a request, but for its outcome. */
function accessRecord(
  incoming: readonly (readonly [string, string])[],
  request: { client: ClientSide; method: string; path: string; requestId: string },
): AccessRecord {
  const field = (wanted: string) => incoming.find(([name]) => name === wanted)?.[1] ?? '';
  return {
    startedAt: Date.now(),
    client: request.client.address,
    method: request.method,
    target: request.path,
    host: request.client.host,
    status: 0,
    bytes: 0,
    durationMs: 0,
    backend: '',
    requestId: request.requestId,
    userAgent: field('user-agent'),
    referer: field('referer'),
  };
}

interface ExchangeOptions {
  route: Route;
  method: string;
  log: Logger;
  /** The Host the client sent (or the route's name), for the log. */
  clientHost: string;
  settled: () => void;
  /** performance.now() when the request arrived. */
  arrivedAt: number;
  access?: { log: AccessLog; record: AccessRecord };
}

const notDispatched: Withdrawable = { withdraw: nothingToWithdraw };

/** The response side: writes what the backend sends to the uWS response. */
class Exchange implements ExchangeHandler {
  private aborted = false;
  /** The client has its whole answer (or as much as it will get). */
  private finished = false;
  private controller: ExchangeController | undefined;
  private upload: Readable | undefined;
  /** `bytes`: some value holds obs-text, one code unit a byte, so the head is written as bytes (uWS writes a string as UTF-8). */
  private head: { status: string; headers: [string, string][]; bytes: boolean } | undefined;
  private headWritten = false;
  /** The body length the backend announced; undefined streams it chunked. */
  private totalSize: number | undefined;
  /** A chunk uWS could not take whole, and the write offset where it started. */
  private pending: { chunk: Buffer; offset: number } | undefined;
  /** uWS calls `onWritable` at each drain of the socket: registered at the first write it could not take whole, as most answers never need it. */
  private drainWatched = false;
  /** Takes the request out of the pool's queue while it waits for a connection. */
  dispatched: Withdrawable = notDispatched;
  /** Checks the upload's rate once per window while it lasts. */
  private floorCheck: NodeJS.Timeout | undefined;

  private readonly route: Route;
  private readonly method: string;
  private readonly log: Logger;
  private readonly clientHost: string;
  private readonly settled: () => void;
  private readonly arrivedAt: number;
  private readonly access: ExchangeOptions['access'];
  /** The backend the request went to, once it did. */
  private backend = '';
  /** The status the client was answered, for the access log; 0 until it is known. */
  private status = 0;
  /** Body bytes handed to the client, for the access log. */
  private bytesSent = 0;
  private logged = false;

  constructor(
    private readonly res: HttpResponse,
    options: ExchangeOptions,
  ) {
    ({
      route: this.route,
      method: this.method,
      log: this.log,
      clientHost: this.clientHost,
      settled: this.settled,
      arrivedAt: this.arrivedAt,
      access: this.access,
    } = options);
    res.onAborted(() => {
      // 499, as nginx logs a request whose client went away before its answer was complete.
      if (!this.finished) this.logAccess(this.status === 0 || this.headWritten ? 499 : this.status);
      this.aborted = true;
      clearInterval(this.floorCheck);
      this.dispatched.withdraw();
      this.settled();
      this.upload?.destroy();
      this.controller?.abort();
    });
  }

  /** The request body as a stream the Pool reads; the client is paused while it is full. */
  readUpload(): Readable {
    let paused = false;
    /** Bytes received in the current window, and whether the proxy paused the client in it (then the window says nothing of the client's rate). */
    let windowBytes = 0;
    let pausedInWindow = false;
    const floor = this.route.uploadFloor;
    this.floorCheck = setInterval(() => {
      const slow = !pausedInWindow && !paused && windowBytes < (floor.bytesPerSecond * floor.windowMs) / 1000;
      windowBytes = 0;
      pausedInWindow = false;
      if (slow) this.dropSlowUpload();
    }, floor.windowMs);
    const upload = new Readable({
      highWaterMark: uploadHighWaterMark,
      read: () => {
        if (!paused || this.aborted || this.finished) return;
        paused = false;
        this.res.resume();
      },
    });
    this.res.onData((chunk, isLast) => {
      // The answer may be out already (the backend failed): the rest of the body is dropped.
      if (this.aborted || this.finished) return;
      // uWS reuses the chunk's memory after this call returns: the stream gets a copy.
      windowBytes += chunk.byteLength;
      const more = upload.push(Buffer.from(new Uint8Array(chunk)));
      if (isLast) {
        clearInterval(this.floorCheck);
        upload.push(null);
      } else if (!more && !paused) {
        paused = true;
        pausedInWindow = true;
        this.res.pause();
      }
    });
    this.upload = upload;
    return upload;
  }

  /**
   * A client sending its body slower than the floor holds a backend connection for nothing (slowloris
   * on the body): the backend exchange is cut and the client gets 408, or a closed connection when its
   * answer has begun.
   */
  private dropSlowUpload(): void {
    clearInterval(this.floorCheck);
    if (this.aborted || this.finished) return;
    this.log.warn('upload slower than the floor dropped', {
      domain: this.route.domain,
      host: hostName(this.clientHost),
      floor_bytes_per_second: this.route.uploadFloor.bytesPerSecond,
    });
    this.dispatched.withdraw();
    this.upload?.destroy();
    this.controller?.abort();
    this.status = this.headWritten ? 499 : 408;
    this.finish();
    if (this.headWritten) {
      this.res.close();
      return;
    }
    this.route.figures?.answered(408);
    this.res.cork(() => {
      this.res
        .writeStatus('408 Request Timeout')
        .writeHeader('content-type', 'application/json')
        .end(JSON.stringify({ error: `the request body arrived slower than ${this.route.uploadFloor.bytesPerSecond} bytes a second` }), true);
    });
  }

  onRequestStart(controller: ExchangeController, backend: string): void {
    this.controller = controller;
    this.backend = backend;
    if (this.aborted) controller.abort();
  }

  onResponseStart(_controller: ExchangeController, { statusCode, statusMessage, fields, contentLength: length, hasObsText }: ResponseHead): void {
    if (this.aborted) return;
    const figures = this.route.figures;
    if (figures !== undefined) {
      figures.upstream.observe((performance.now() - this.arrivedAt) / 1000);
      figures.answered(statusCode);
    }
    this.status = statusCode;
    this.head = {
      status: statusMessage === '' ? String(statusCode) : `${statusCode} ${statusMessage}`,
      headers: clientResponseHeaders(fields, this.route.hsts),
      bytes: hasObsText,
    };
    const bodiless = this.method === 'HEAD' || statusCode === 204 || statusCode === 304;
    if (bodiless) {
      this.res.cork(() => {
        this.writeHead();
        if (typeof length === 'string' && statusCode !== 204) this.res.endWithoutBody(Number(length));
        else this.res.endWithoutBody();
      });
      this.finish();
      return;
    }
    this.totalSize = typeof length === 'string' ? Number(length) : undefined;
  }

  onResponseData(controller: ExchangeController, chunk: Buffer): void {
    if (this.aborted || this.finished) return;
    this.bytesSent += chunk.length;
    this.res.cork(() => {
      this.writeHead();
      if (this.totalSize !== undefined) this.sendPart(chunk);
      else if (!this.res.write(chunk)) {
        this.watchDrain();
        controller.pause();
      }
    });
  }

  /** tryEnd for a body of announced length; on backpressure the chunk waits for onWritable. */
  private sendPart(chunk: Buffer): void {
    const offset = this.res.getWriteOffset();
    const [ok, done] = this.res.tryEnd(chunk, this.totalSize!);
    if (done) this.finish();
    else if (!ok) {
      // The chunk may lie in the backend connection's read buffer, used again at the next read.
      this.pending = { chunk: Buffer.from(chunk), offset };
      this.watchDrain();
      this.controller?.pause();
    }
  }

  private watchDrain(): void {
    if (this.drainWatched) return;
    this.drainWatched = true;
    this.res.onWritable((offset) => this.onWritable(offset));
  }

  onResponseEnd(): void {
    if (this.aborted || this.finished) return;
    this.finish();
    this.res.cork(() => {
      this.writeHead();
      this.res.end();
    });
  }

  onResponseError(_controller: ExchangeController, error: BackendError): void {
    clearInterval(this.floorCheck);
    this.upload?.destroy();
    if (this.aborted || this.finished) return;
    this.route.figures?.backendFailed(error.kind);
    const backend = this.backend === '' ? this.route.upstream.label : this.backend;
    if (this.head !== undefined) {
      this.finish();
      // The status is on its way already: cutting the connection is the only way left to say the body is incomplete.
      this.log.warn('backend failed during a response', { domain: this.route.domain, backend, error: error.message });
      this.res.close();
      return;
    }
    if (error.kind === 'busy' || error.details.noneUp === true) return this.refuseUnavailable(error, backend);
    const timedOut = error.kind === 'timeout';
    const [status, title] = timedOut ? ['504', 'Gateway Timeout'] : ['502', 'Bad Gateway'];
    this.route.figures?.answered(Number(status));
    this.status = Number(status);
    this.finish();
    this.log.warn(timedOut ? 'backend did not answer in time' : 'backend unreachable', {
      domain: this.route.domain,
      backend,
      host: hostName(this.clientHost),
      error: error.message,
    });
    this.res.cork(() => {
      this.res
        .writeStatus(`${status} ${title}`)
        .writeHeader('content-type', 'text/html; charset=utf-8')
        .writeHeader('cache-control', 'no-store')
        .end(errorPage(Number(status), title, `The service behind ${this.route.domain} is not answering. Try again in a moment.`));
    });
  }

  /**
   * RFC 9110 section 15.6.4: the route's connections and queue are full, or none of its backends is up
   * (their health checks fail, or they rest after failed requests); the client may come back.
   */
  private refuseUnavailable(error: BackendError, backend: string): void {
    const busy = error.kind === 'busy';
    this.log.warn(busy ? 'backend queue full' : 'no backend up', { domain: this.route.domain, backend, error: error.message });
    this.route.figures?.answered(503);
    this.status = 503;
    this.finish();
    this.res.cork(() => {
      this.res
        .writeStatus('503 Service Unavailable')
        .writeHeader('content-type', 'text/html; charset=utf-8')
        .writeHeader('cache-control', 'no-store')
        .writeHeader('retry-after', String(busyRetryAfterSeconds))
        .end(
          errorPage(
            503,
            'Service Unavailable',
            busy
              ? `The service behind ${this.route.domain} is busy. Try again in a few seconds.`
              : `The service behind ${this.route.domain} is down. Try again in a moment.`,
          ),
        );
    });
  }

  /** uWS calls this at every drain of the socket, whatever was written since. */
  private onWritable(offset: number): boolean {
    if (this.aborted || this.finished) return true;
    const pending = this.pending;
    if (pending !== undefined) {
      const [ok, done] = this.res.tryEnd(pending.chunk.subarray(offset - pending.offset), this.totalSize!);
      if (done) this.finish();
      if (!ok && !done) return false;
      this.pending = undefined;
    }
    this.controller?.resume();
    return true;
  }

  /** Writes the request's line to the access log, once, when there is one. */
  private logAccess(status: number): void {
    const access = this.access;
    if (access === undefined || this.logged) return;
    this.logged = true;
    const { record } = access;
    record.status = status;
    record.bytes = this.bytesSent;
    record.durationMs = performance.now() - this.arrivedAt;
    record.backend = this.backend;
    access.log.write(record);
  }

  /** The client has its answer: the request no longer counts as in flight. */
  private finish(): void {
    if (this.finished) return;
    if (!this.aborted) this.logAccess(this.status);
    this.finished = true;
    clearInterval(this.floorCheck);
    if (!this.aborted) this.settled();
  }

  private writeHead(): void {
    if (this.headWritten || this.head === undefined) return;
    this.headWritten = true;
    const { status, headers, bytes } = this.head;
    if (!bytes) {
      this.res.writeStatus(status);
      for (const [name, value] of headers) this.res.writeHeader(name, value);
      return;
    }
    this.res.writeStatus(Buffer.from(status, 'latin1'));
    for (const [name, value] of headers) this.res.writeHeader(name, Buffer.from(value, 'latin1'));
  }
}
