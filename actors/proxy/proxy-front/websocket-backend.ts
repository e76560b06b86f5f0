// The proxy's WebSocket to a backend, with the `ws` client: unlike undici's WebSocket, it can stop
// reading its TCP socket (pause/resume), which is how a client that reads slowly slows the backend
// down instead of filling the proxy's memory (websocket.ts).
import BackendSocket from 'ws';
import { formatHostPort } from '../../../src/net/address.js';
import type { BackendTarget as Backend } from './backend-target.js';
import type { UpstreamSettings } from './protocol.js';

export { BackendSocket };

export interface BackendTarget {
  backend: Backend;
  /** How an https:// backend is verified (its WebSocket is then wss://). */
  tls: UpstreamSettings['tls'];
  /** Path and query of the client's upgrade request. */
  pathAndQuery: string;
  /** The subprotocols the client offered, in its order. */
  protocols: string[];
  /** The headers to send (backendRequestHeaders: lower-case names, a name may come twice). */
  headers: readonly string[];
  /** The largest message accepted from the backend; the client's side has the same bound. */
  maxMessageBytes: number;
}

/** Opens the backend's side of a relay; it starts reading at once, the relay pauses it when needed. */
export function openBackendSocket(target: BackendTarget): BackendSocket {
  const { backend, tls } = target;
  const secure = backend.scheme === 'https';
  return new BackendSocket(`${secure ? 'wss' : 'ws'}://${formatHostPort(backend.host, backend.port)}${target.pathAndQuery}`, target.protocols, {
    ...(secure
      ? {
          rejectUnauthorized: tls.verify,
          ...(tls.ca === undefined ? {} : { ca: tls.ca }),
          ...(tls.servername === undefined ? {} : { servername: tls.servername }),
        }
      : {}),
    headers: headerObject(target.headers),
    maxPayload: target.maxMessageBytes,
    // Messages are relayed as they come, uncompressed: the client's side offers no extension either.
    perMessageDeflate: false,
    // A backend's redirect is answered to the proxy, not followed to another host.
    followRedirects: false,
  });
}

/**
 * Node's request takes one value per name: a name that comes twice is sent once with its values
 * joined, as RFC 9110 section 5.3 allows (with `; ` for Cookie, RFC 6265 section 5.4).
 */
function headerObject(flat: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let index = 0; index < flat.length; index += 2) {
    const name = flat[index]!;
    const value = flat[index + 1]!;
    const before = headers[name];
    headers[name] = before === undefined ? value : `${before}${name === 'cookie' ? '; ' : ', '}${value}`;
  }
  return headers;
}
