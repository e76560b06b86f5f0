// WebSocket upgrades through the proxy. uWS ends the client's WebSocket itself, so the proxy opens
// its own WebSocket to the backend (undici's client) and relays messages both ways: text stays text,
// binary stays binary, and a close on either side closes the other with the same code.
//
// Bounds: an upgrade passes the same Host and framing checks as a request, and the per-client and
// total caps (websocket-limits.ts); a relay silent both ways past the idle timeout is closed; and
// neither side's send buffer may grow past `maxBufferedBytes`. Neither uWS's WebSocket nor undici's
// can pause its reading in the versions used here, so a side that does not read fast enough is
// closed (1013, try again later) rather than paused: memory stays bounded either way.
import { WebSocket as BackendSocket } from 'undici';
import type { HttpRequest, HttpResponse, us_socket_context_t, WebSocket, WebSocketBehavior } from 'uWebSockets.js';
import type { Logger } from '../../../src/log/record.js';
import { backendRequestHeaders, clientAddress, errorPage, hostName, pathAndQuery } from './logic.js';
import { dropAfterRefusal, refuseMalformed } from '../../../src/http/malformed.js';
import { requestFraming } from '../../../src/http/request-framing.js';
import type { TrackedSocket, WebSocketLimits } from './websocket-limits.js';
import type { RouteFigures } from './figures.js';
import type { Route } from './forward.js';

export interface Relay {
  backend: BackendSocket;
  /** `host:port` of the backend, for the log. */
  backendAddress: string;
  /** Counts the relay as open; absent when metrics are off. */
  figures?: RouteFigures;
  client?: WebSocket<RelayData>;
  /** Backend messages that arrived before the client's side was open. */
  early: (string | ArrayBuffer)[];
  clientClosed: boolean;
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
  /** A send buffer (either way) past this closes the relay. */
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

const maxMessageBytes = 16 * 1024 * 1024;
const decoder = new TextDecoder();

/** 1013: the proxy is overloaded by this connection (RFC 6455 section 7.4.2, IANA registry). */
const tryAgainLater = 1013;

/** The uWS behaviour relaying upgrades on one route to `backend` (`host:port`). */
export function webSocketRelay(options: RelayOptions): WebSocketBehavior<RelayData> {
  return {
    maxPayloadLength: maxMessageBytes,
    // uWS's own bound on what waits for a slow client: past it, the socket is closed.
    maxBackpressure: options.maxBufferedBytes,
    closeOnBackpressureLimit: true,
    // The proxy keeps the idle clock itself (websocket-limits.ts).
    idleTimeout: 0,
    upgrade: (res, req, context) => openBackend(res, req, context, options),
    open: (ws) => {
      const { relay } = ws.getUserData();
      relay.client = ws;
      if (relay.backend.readyState === BackendSocket.CLOSED) {
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
      for (const message of relay.early.splice(0)) sendToClient(relay, message);
    },
    message: (ws, message, isBinary) => {
      const { relay } = ws.getUserData();
      const socket = relay.backend;
      if (socket.readyState !== BackendSocket.OPEN) return;
      relay.idle.lastActivity = Date.now();
      // uWS reuses the message's memory after this call: text is decoded, binary copied.
      socket.send(isBinary ? new Uint8Array(message.slice(0)) : decoder.decode(message));
      if (socket.bufferedAmount > options.maxBufferedBytes) {
        options.log.warn('WebSocket closed: the backend reads slower than the client sends', { domain: options.domain, backend: relay.backendAddress, buffered: socket.bufferedAmount });
        ws.end(tryAgainLater, 'backend too slow');
      }
    },
    close: (ws, code, message) => {
      const { relay } = ws.getUserData();
      relay.clientClosed = true;
      relay.release();
      relay.untrack?.();
      if (relay.countedIn !== undefined) relay.countedIn.webSocketsOpen--;
      relay.countedIn = undefined;
      relay.backend.close(sendableCode(code), decoder.decode(message).slice(0, 120));
    },
  };
}

function openBackend(res: HttpResponse, req: HttpRequest, context: us_socket_context_t, options: RelayOptions): void {
  const { domain, log } = options;
  if (dropAfterRefusal(res)) return;
  const host = req.getHeader('host');
  const route = options.route();
  if (route === undefined || (host !== '' && hostName(host) !== domain)) return options.misdirected(res, domain);
  const { backend } = route;
  const key = req.getHeader('sec-websocket-key');
  const protocols = req
    .getHeader('sec-websocket-protocol')
    .split(',')
    .map((protocol) => protocol.trim())
    .filter((protocol) => protocol !== '');
  const incoming: [string, string][] = [];
  req.forEach((name, value) => incoming.push([name, value]));
  const framing = requestFraming(incoming);
  if (!framing.ok) return refuseMalformed(res, framing.problem);
  const address = clientAddress(Buffer.from(res.getRemoteAddressAsText()).toString());
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
  const flat = backendRequestHeaders(incoming, { address, host: host === '' ? domain : host }, { webSocket: true });
  const headers: [string, string][] = [];
  for (let index = 0; index < flat.length; index += 2) headers.push([flat[index]!, flat[index + 1]!]);

  /** Set once the upgrade request is answered (upgraded, refused) or its client is gone. */
  let answered = false;
  const socket = new BackendSocket(`ws://${backend}${pathAndQuery(req.getUrl(), req.getQuery() ?? '')}`, { protocols, headers });
  socket.binaryType = 'arraybuffer';
  const relay: Relay = {
    backend: socket,
    backendAddress: backend,
    ...(route.figures === undefined ? {} : { figures: route.figures }),
    early: [],
    clientClosed: false,
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
      res.writeStatus('502 Bad Gateway').writeHeader('content-type', 'text/html; charset=utf-8').end(errorPage(502, 'Bad Gateway', `The service behind ${domain} did not accept the WebSocket connection.`));
    });
  };
  socket.addEventListener('open', () => {
    if (answered) return socket.close();
    answered = true;
    // No extension is offered back: messages are relayed as they come, uncompressed.
    res.cork(() => res.upgrade<RelayData>({ relay }, key, socket.protocol, '', context));
  });
  socket.addEventListener('error', () => {
    if (relay.client === undefined) refuse('the backend WebSocket failed to open');
  });
  socket.addEventListener('message', (event) => {
    // binaryType 'arraybuffer': binary messages come as ArrayBuffer, text as string.
    const data = event.data as string | ArrayBuffer;
    if (relay.client === undefined) relay.early.push(data);
    else if (!relay.clientClosed) sendToClient(relay, data);
  });
  socket.addEventListener('close', (event) => {
    if (relay.client === undefined) return refuse(`the backend closed the WebSocket (${event.code})`);
    if (relay.clientClosed) return;
    relay.clientClosed = true;
    relay.client.end(sendableCode(event.code), event.reason);
  });
}

/** uWS closes the client past maxBackpressure (closeOnBackpressureLimit), which ends the relay. */
function sendToClient(relay: Relay, message: string | ArrayBuffer): void {
  relay.idle.lastActivity = Date.now();
  relay.client!.send(message, typeof message !== 'string');
}

/** Codes 1005 and 1006 say that no code was sent; they may not be sent themselves. */
function sendableCode(code: number): number {
  return code === 1000 || (code >= 3000 && code <= 4999) ? code : 1000;
}
