// WebSocket upgrades through the proxy. uWS ends the client's WebSocket itself, so the proxy opens
// its own WebSocket to the backend (undici's client) and relays messages both ways: text stays text,
// binary stays binary, and a close on either side closes the other with the same code.
import { WebSocket as BackendSocket } from 'undici';
import type { HttpRequest, HttpResponse, us_socket_context_t, WebSocket, WebSocketBehavior } from 'uWebSockets.js';
import type { Logger } from '../../src/log/record.js';
import { backendRequestHeaders, clientAddress, errorPage, pathAndQuery } from './logic.js';

export interface Relay {
  backend: BackendSocket;
  client?: WebSocket<RelayData>;
  /** Backend messages that arrived before the client's side was open. */
  early: (string | ArrayBuffer)[];
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
const decoder = new TextDecoder();

/** The uWS behaviour relaying upgrades on one route to `backend` (`host:port`). */
export function webSocketRelay(domain: string, backend: string, log: Logger): WebSocketBehavior<RelayData> {
  return {
    maxPayloadLength: maxMessageBytes,
    maxBackpressure: maxMessageBytes,
    idleTimeout: 0,
    upgrade: (res, req, context) => openBackend(res, req, context, domain, backend, log),
    open: (ws) => {
      const { relay } = ws.getUserData();
      relay.client = ws;
      if (relay.backend.readyState === BackendSocket.CLOSED) {
        relay.clientClosed = true;
        ws.end(1000);
        return;
      }
      for (const message of relay.early.splice(0)) sendToClient(ws, message);
    },
    message: (ws, message, isBinary) => {
      const socket = ws.getUserData().relay.backend;
      if (socket.readyState !== BackendSocket.OPEN) return;
      // uWS reuses the message's memory after this call: text is decoded, binary copied.
      socket.send(isBinary ? new Uint8Array(message.slice(0)) : decoder.decode(message));
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
  const headers: [string, string][] = [];
  for (let index = 0; index < flat.length; index += 2) headers.push([flat[index]!, flat[index + 1]!]);

  /** Set once the upgrade request is answered (upgraded, refused) or its client is gone. */
  let answered = false;
  const socket = new BackendSocket(`ws://${backend}${pathAndQuery(req.getUrl(), req.getQuery() ?? '')}`, { protocols, headers });
  socket.binaryType = 'arraybuffer';
  const relay: Relay = { backend: socket, early: [], clientClosed: false };
  res.onAborted(() => {
    answered = true;
    socket.close();
  });
  const refuse = (reason: string) => {
    if (answered) return;
    answered = true;
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
    else if (!relay.clientClosed) sendToClient(relay.client, data);
  });
  socket.addEventListener('close', (event) => {
    if (relay.client === undefined) return refuse(`the backend closed the WebSocket (${event.code})`);
    if (relay.clientClosed) return;
    relay.clientClosed = true;
    relay.client.end(sendableCode(event.code), event.reason);
  });
}

function sendToClient(ws: WebSocket<RelayData>, message: string | ArrayBuffer): void {
  ws.send(message, typeof message !== 'string');
}

/** Codes 1005 and 1006 say that no code was sent; they may not be sent themselves. */
function sendableCode(code: number): number {
  return code === 1000 || (code >= 3000 && code <= 4999) ? code : 1000;
}
