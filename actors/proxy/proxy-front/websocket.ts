// WebSocket upgrades through the proxy. uWS ends the client's WebSocket itself, so the proxy opens
// its own WebSocket to the backend (websocket-backend.ts) and relays messages both ways: text stays
// text, binary stays binary, and a close on either side closes the other with the same code.
//
// Bounds: an upgrade passes the same Host and framing checks as a request, and the per-client and
// total caps (websocket-limits.ts); a relay silent both ways past the idle timeout is closed; and
// neither side's send buffer may grow past `maxBufferedBytes`, each direction its own way:
// - backend to client: past the bound the proxy stops reading the backend (ws's pause) until the
//   client has read half of it, so the backend's own socket fills and it feels the slow client, as
//   behind nginx; the relay stays open.
// - client to backend: uWS's WebSocket has no pause (uws-pack 20.0.8 has pause/resume on
//   HttpResponse only), so the proxy cannot stop reading a client; past the bound it closes the
//   relay (1013, try again later) instead.
import type { HttpRequest, HttpResponse, us_socket_context_t, WebSocket, WebSocketBehavior } from 'uWebSockets.js';
import type { Logger } from '../../../src/log/record.js';
import { backendRequestHeaders, errorPage, hostName, pathAndQuery } from './logic.js';
import { dropAfterRefusal, refuseMalformed } from '../../../src/http/malformed.js';
import { forwardableRequest } from './forwardable-request.js';
import type { TrackedSocket, WebSocketLimits } from './websocket-limits.js';
import { BackendSocket, openBackendSocket } from './websocket-backend.js';
import type { RouteFigures } from './figures.js';
import { clientSideOf, type Route } from './forward.js';

export interface Relay {
  backend: BackendSocket;
  /** `host:port` of the backend, for the log. */
  backendAddress: string;
  /** Counts the relay as open; absent when metrics are off. */
  figures?: RouteFigures;
  client?: WebSocket<RelayData>;
  /** Backend messages that arrived before the client's side was open. */
  early: BackendMessage[];
  clientClosed: boolean;
  /** The proxy stopped reading the backend: the client has more than the bound waiting. */
  backendPaused: boolean;
  /** Uncounts the relay from the caps (once). */
  release: () => void;
  /** Stops the idle watch. */
  untrack?: () => void;
  /** Where the relay counts as open while both sides are (set at open, cleared at close). */
  countedIn?: RouteFigures;
  idle: TrackedSocket;
}

export interface RelayOptions {
  domain: string;
  /** The route as it is now: a reload may change its backend, or take it out (then upgrades get 421). */
  route: () => Route | undefined;
  log: Logger;
  limits: WebSocketLimits;
  /** What may wait for a side: towards the client, past it the backend is paused; towards the backend, the relay is closed. */
  maxBufferedBytes: number;
  /** Answers a request whose Host names another route than the connection's (421). */
  misdirected: (res: HttpResponse, domain: string) => void;
}

/**
 * The WebSocket's user data. uWS keeps a copy of the object given to upgrade(), not the object, so the
 * relay both sides share is one level down.
 */
export interface RelayData {
  relay: Relay;
}

interface BackendMessage {
  data: Buffer;
  isBinary: boolean;
}

const maxMessageBytes = 16 * 1024 * 1024;

/** 1013: the proxy is overloaded by this connection (RFC 6455 section 7.4.2, IANA registry). */
const tryAgainLater = 1013;

/** A close reason is at most 123 bytes (RFC 6455 section 5.5: 125 with the code). */
const maxReasonBytes = 123;

/** The uWS behaviour relaying upgrades on one route to its backend. */
export function webSocketRelay(options: RelayOptions): WebSocketBehavior<RelayData> {
  const bound = options.maxBufferedBytes;
  return {
    maxPayloadLength: maxMessageBytes,
    // The pause keeps what waits for the client near `bound`: past it by at most what the backend's
    // socket had delivered when it was paused, one message at most. uWS's own limit, above that, is
    // only the backstop that closes the client if the pause ever fails to hold.
    maxBackpressure: bound + maxMessageBytes,
    closeOnBackpressureLimit: true,
    // The proxy keeps the idle clock itself (websocket-limits.ts).
    idleTimeout: 0,
    upgrade: (res, req, context) => openBackend(res, req, context, options),
    open: (ws) => {
      const { relay } = ws.getUserData();
      relay.client = ws;
      if (relay.backend.readyState !== BackendSocket.OPEN) {
        relay.clientClosed = true;
        relay.release();
        ws.end(1000);
        return;
      }
      relay.untrack = options.limits.track(relay.idle);
      if (relay.figures !== undefined) {
        relay.countedIn = relay.figures;
        relay.countedIn.webSocketsOpen++;
      }
      for (const message of relay.early.splice(0)) sendToClient(relay, message, bound);
    },
    message: (ws, message, isBinary) => {
      const { relay } = ws.getUserData();
      const socket = relay.backend;
      if (socket.readyState !== BackendSocket.OPEN) return;
      // While the backend is paused for this client, what the client sends does not keep the relay
      // from the idle timeout: only its reading does (drain), as with nginx's send_timeout.
      if (!relay.backendPaused) relay.idle.lastActivity = Date.now();
      // uWS reuses the message's memory after this call: it is copied.
      socket.send(Buffer.from(message.slice(0)), { binary: isBinary });
      if (socket.bufferedAmount > bound) {
        options.log.warn('WebSocket closed: the backend reads slower than the client sends', {
          domain: options.domain,
          backend: relay.backendAddress,
          buffered: socket.bufferedAmount,
        });
        ws.end(tryAgainLater, 'backend too slow');
      }
    },
    drain: (ws) => {
      const { relay } = ws.getUserData();
      relay.idle.lastActivity = Date.now();
      // Half the bound: the backend is not paused and resumed at every message near it.
      if (relay.backendPaused && ws.getBufferedAmount() <= bound / 2) {
        relay.backendPaused = false;
        relay.backend.resume();
      }
    },
    close: (ws, code, message) => {
      const { relay } = ws.getUserData();
      relay.clientClosed = true;
      relay.release();
      relay.untrack?.();
      if (relay.countedIn !== undefined) relay.countedIn.webSocketsOpen--;
      relay.countedIn = undefined;
      // A paused backend's answer to the close would wait behind what it sent, unread, until ws's
      // 30 s closing timeout: read on (what comes is dropped, the client is gone).
      if (relay.backendPaused) relay.backend.resume();
      relay.backend.close(sendableCode(code), closeReason(Buffer.from(message)));
    },
  };
}

function openBackend(res: HttpResponse, req: HttpRequest, context: us_socket_context_t, options: RelayOptions): void {
  const { domain, log } = options;
  if (dropAfterRefusal(res)) return;
  const host = req.getHeader('host');
  const route = options.route();
  if (route === undefined || (host !== '' && hostName(host) !== domain)) return options.misdirected(res, domain);
  const member = route.upstream.pick();
  if (member === undefined) return refuseDown(res, domain, log);
  const backend = member.target.label;
  const key = req.getHeader('sec-websocket-key');
  const protocols = req
    .getHeader('sec-websocket-protocol')
    .split(',')
    .map((protocol) => protocol.trim())
    .filter((protocol) => protocol !== '');
  const target = pathAndQuery(req.getUrl(), req.getQuery());
  const incoming: [string, string][] = [];
  req.forEach((name, value) => incoming.push([name, value]));
  const framing = forwardableRequest(req.getCaseSensitiveMethod(), target, incoming);
  if (!framing.ok) return refuseMalformed(res, framing.problem);
  const client = clientSideOf(res, incoming, route);
  const { address } = client;
  const admission = options.limits.admit(address);
  if (!admission.ok) {
    log.warn('WebSocket upgrade refused', { domain, client: address, error: admission.reason });
    res.cork(() => {
      res
        .writeStatus(admission.status === 429 ? '429 Too Many Requests' : '503 Service Unavailable')
        .writeHeader('content-type', 'application/json')
        .writeHeader('retry-after', '5')
        .end(JSON.stringify({ error: admission.reason }));
    });
    return;
  }
  const headers = backendRequestHeaders(incoming, client, { webSocket: true });
  let socket: BackendSocket;
  try {
    socket = openBackendSocket({ backend: member.target, tls: member.tls, pathAndQuery: target, protocols, headers, maxMessageBytes });
  } catch (error) {
    // ws refuses, before connecting, what it cannot send: a subprotocol that is not a token, or one offered twice.
    admission.release();
    return refuseMalformed(res, `the WebSocket upgrade cannot be relayed: ${(error as Error).message}`);
  }

  /** Set once the upgrade request is answered (upgraded, refused) or its client is gone. */
  let answered = false;
  const relay: Relay = {
    backend: socket,
    backendAddress: backend,
    ...(route.figures === undefined ? {} : { figures: route.figures }),
    early: [],
    clientClosed: false,
    backendPaused: false,
    release: admission.release,
    idle: {
      client: address,
      lastActivity: Date.now(),
      closeIdle: () => {
        if (relay.clientClosed || relay.client === undefined) return;
        log.info('idle WebSocket closed', { domain, client: address });
        relay.client.end(1001, 'idle');
      },
    },
  };
  res.onAborted(() => {
    answered = true;
    relay.release();
    socket.close();
  });
  const refuse = (reason: string) => {
    if (answered) return;
    answered = true;
    relay.release();
    log.warn('backend refused a WebSocket upgrade', { domain, backend, error: reason });
    res.cork(() => {
      res
        .writeStatus('502 Bad Gateway')
        .writeHeader('content-type', 'text/html; charset=utf-8')
        .end(errorPage(502, 'Bad Gateway', `The service behind ${domain} did not accept the WebSocket connection.`));
    });
  };
  socket.on('open', () => {
    if (answered) return socket.close();
    answered = true;
    // Not inside res.cork, although uWS asks for it: in uws-pack 20.0.8, HttpResponse.cork, once its
    // callback returns, reads the HTTP state of a socket that the upgrade inside has turned into a
    // WebSocket in place (its memory shrunk and the rest freed). When that freed memory reads as
    // "Connection: close, response done", it shuts the new WebSocket down with no close frame: the
    // client sees 1006 right after its open, about 1 in 200 under load (uNetworking/uWebSockets#1928,
    // fixed upstream by uNetworking/uWebSockets#1929, not in this binary). Uncorked, the 101's lines go out in small TLS
    // records and uWebSockets.js prints a warning on standard error for each upgrade (docs/certhub-agent.md).
    // No extension is offered back: messages are relayed as they come, uncompressed.
    res.upgrade<RelayData>({ relay }, key, socket.protocol, '', context);
  });
  socket.on('error', (error) => {
    if (relay.client === undefined) refuse(`the backend WebSocket failed to open: ${error.message}`);
  });
  socket.on('message', (data, isBinary) => {
    // The default binaryType, 'nodebuffer': a message comes as one Buffer, its fragments joined.
    const message = { data: data as Buffer, isBinary };
    if (relay.client === undefined) relay.early.push(message);
    else if (!relay.clientClosed) sendToClient(relay, message, options.maxBufferedBytes);
  });
  socket.on('close', (code, reason) => {
    if (relay.client === undefined) return refuse(`the backend closed the WebSocket (${code})`);
    if (relay.clientClosed) return;
    relay.clientClosed = true;
    relay.client.end(sendableCode(code), closeReason(reason));
  });
}

/**
 * Sends a backend message on; past `bound` waiting for the client, stops reading the backend until
 * the client's drain brings it back under half (the drain handler above).
 */
function sendToClient(relay: Relay, message: BackendMessage, bound: number): void {
  relay.idle.lastActivity = Date.now();
  const client = relay.client!;
  client.send(message.data, message.isBinary);
  if (!relay.backendPaused && client.getBufferedAmount() > bound) {
    relay.backendPaused = true;
    relay.backend.pause();
  }
}

/** Codes 1005 and 1006 say that no code was sent; they may not be sent themselves. */
function sendableCode(code: number): number {
  return code === 1000 || (code >= 3000 && code <= 4999) ? code : 1000;
}

/** The reason as text, cut to what a close frame holds without splitting a character. */
function closeReason(reason: Buffer): string {
  const text = reason.toString();
  return Buffer.byteLength(text) <= maxReasonBytes ? text : new TextDecoder().decode(reason.subarray(0, maxReasonBytes)).replace(/\uFFFD+$/, '');
}

/** No backend of the route is up: the upgrade gets the 503 a request would. */
function refuseDown(res: HttpResponse, domain: string, log: Logger): void {
  log.warn('WebSocket upgrade refused: no backend up', { domain });
  res.cork(() => {
    res
      .writeStatus('503 Service Unavailable')
      .writeHeader('content-type', 'text/html; charset=utf-8')
      .writeHeader('retry-after', '5')
      .end(errorPage(503, 'Service Unavailable', `The service behind ${domain} is down. Try again in a moment.`));
  });
}
