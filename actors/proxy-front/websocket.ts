// WebSocket upgrades through the proxy. uWS ends the client's WebSocket itself, so the proxy opens
// its own WebSocket to the backend and relays messages both ways: text stays text, binary stays
// binary, and a close on either side closes the other with the same code.
//
// Flow control: the backend side is a `ws` client because it can stop reading (pause), which the
// WHATWG WebSocket of undici cannot: while the client has more than `clientHighWater` bytes waiting,
// the backend socket is not read, so a slow client slows the backend down instead of filling the
// proxy's memory (or, past uWS's limit, losing messages). uWS cannot stop reading a client's
// WebSocket, so the other way is bounded instead: a backend that leaves more than
// `backendBufferLimit` bytes unread has its client closed with 1013 (try again later), loudly.
import type { HttpRequest, HttpResponse, us_socket_context_t, WebSocket, WebSocketBehavior } from 'uWebSockets.js';
import { WebSocket as BackendSocket, type RawData } from 'ws';
import type { Logger } from '../../src/log/record.js';
import { backendRequestHeaders, clientAddress, errorPage, pathAndQuery } from './logic.js';

export interface Relay {
  backend: BackendSocket;
  client?: WebSocket<RelayData>;
  clientClosed: boolean;
}

/**
 * The WebSocket's user data. uWS keeps a copy of the object given to upgrade(), not the object, so the
 * relay both sides share is one level down.
 */
export interface RelayData {
  relay: Relay;
}

const maxMessageBytes = 16 * 1024 * 1024;
/** Bytes waiting for the client above which the backend is not read. */
const clientHighWater = 1024 * 1024;
/** Bytes the backend may leave unread before its client is closed. */
const backendBufferLimit = 2 * maxMessageBytes;
const decoder = new TextDecoder();

/** The uWS behaviour relaying upgrades on one route to `backend` (`host:port`). */
export function webSocketRelay(domain: string, backend: string, log: Logger): WebSocketBehavior<RelayData> {
  return {
    maxPayloadLength: maxMessageBytes,
    // Room for one largest message above the high-water mark: a send is never dropped.
    maxBackpressure: clientHighWater + maxMessageBytes,
    idleTimeout: 0,
    upgrade: (res, req, context) => openBackend(res, req, context, domain, backend, log),
    open: (ws) => {
      const { relay } = ws.getUserData();
      relay.client = ws;
      if (relay.backend.readyState !== BackendSocket.OPEN) {
        relay.clientClosed = true;
        ws.end(1000);
        return;
      }
      relay.backend.resume();
    },
    message: (ws, message, isBinary) => {
      const { relay } = ws.getUserData();
      const socket = relay.backend;
      if (socket.readyState !== BackendSocket.OPEN) return;
      if (socket.bufferedAmount > backendBufferLimit) {
        log.warn('WebSocket closed: the backend does not read what its client sends', { domain, backend, buffered: socket.bufferedAmount });
        relay.clientClosed = true;
        ws.end(1013, 'backend too slow');
        socket.close(1013, 'backend too slow');
        return;
      }
      // uWS reuses the message's memory after this call, so it is copied; text goes on as its bytes
      // (uWS has checked they are UTF-8).
      socket.send(Buffer.from(message.slice(0)), { binary: isBinary });
    },
    drain: (ws) => {
      if (ws.getBufferedAmount() < clientHighWater) ws.getUserData().relay.backend.resume();
    },
    close: (ws, code, message) => {
      const { relay } = ws.getUserData();
      relay.clientClosed = true;
      relay.backend.close(sendableCode(code), decoder.decode(message).slice(0, 120));
    },
  };
}

function openBackend(res: HttpResponse, req: HttpRequest, context: us_socket_context_t, domain: string, backend: string, log: Logger): void {
  const key = req.getHeader('sec-websocket-key');
  const protocols = req
    .getHeader('sec-websocket-protocol')
    .split(',')
    .map((protocol) => protocol.trim())
    .filter((protocol) => protocol !== '');
  const incoming: [string, string][] = [];
  req.forEach((name, value) => incoming.push([name, value]));
  const host = req.getHeader('host');
  const flat = backendRequestHeaders(incoming, { address: clientAddress(Buffer.from(res.getRemoteAddressAsText()).toString()), host: host === '' ? domain : host }, { webSocket: true });
  const headers: Record<string, string> = {};
  for (let index = 0; index < flat.length; index += 2) headers[flat[index]!] = flat[index + 1]!;

  /** Set once the upgrade request is answered (upgraded, refused) or its client is gone. */
  let answered = false;
  // No extension is offered: messages are relayed as they come, uncompressed.
  const socket = new BackendSocket(`ws://${backend}${pathAndQuery(req.getUrl(), req.getQuery() ?? '')}`, protocols, { headers, perMessageDeflate: false, maxPayload: maxMessageBytes });
  const relay: Relay = { backend: socket, clientClosed: false };
  res.onAborted(() => {
    answered = true;
    socket.terminate();
  });
  const refuse = (reason: string) => {
    if (answered) return;
    answered = true;
    log.warn('backend refused a WebSocket upgrade', { domain, backend, error: reason });
    res.cork(() => {
      res.writeStatus('502 Bad Gateway').writeHeader('content-type', 'text/html; charset=utf-8').end(errorPage(502, 'Bad Gateway', `The service behind ${domain} did not accept the WebSocket connection.`));
    });
  };
  socket.on('open', () => {
    if (answered) return socket.terminate();
    answered = true;
    // Nothing is read from the backend until the client's side is open (uWS `open`).
    socket.pause();
    res.cork(() => res.upgrade<RelayData>({ relay }, key, socket.protocol, '', context));
  });
  socket.on('unexpected-response', (_request, response) => {
    response.resume();
    refuse(`the backend answered the upgrade with HTTP ${response.statusCode ?? 0}`);
    socket.terminate();
  });
  socket.on('error', (error) => {
    if (relay.client === undefined) refuse(`the backend WebSocket failed to open: ${error.message}`);
  });
  socket.on('message', (data: RawData, isBinary: boolean) => {
    const client = relay.client;
    if (client === undefined || relay.clientClosed) return;
    // Text goes on as its bytes (ws has checked they are UTF-8).
    client.send(Array.isArray(data) ? Buffer.concat(data) : data, isBinary);
    if (client.getBufferedAmount() >= clientHighWater) socket.pause();
  });
  socket.on('close', (code: number, reason: Buffer) => {
    if (relay.client === undefined) return refuse(`the backend closed the WebSocket (${code})`);
    if (relay.clientClosed) return;
    relay.clientClosed = true;
    relay.client.end(sendableCode(code), reason.toString().slice(0, 120));
  });
}

/** Codes 1005 and 1006 say that no code was sent; they may not be sent themselves. */
function sendableCode(code: number): number {
  return code === 1000 || (code >= 3000 && code <= 4999) ? code : 1000;
}
