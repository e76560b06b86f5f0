// A WebSocket backend for the proxy's backpressure tests: ws's server on a free loopback port.
// /flood?bytes=N sends N bytes of numbered binary messages as fast as its socket takes them, holding
// at most `highWater` bytes in its own send buffer (so a test sees whether it is held back), and
// hashes what it sent; /sink accepts a WebSocket and never reads from it.
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ExecutionContext } from 'ava';
import WebSocket, { WebSocketServer } from 'ws';

export interface Flood {
  socket: WebSocket;
  /** Bytes handed to send so far. */
  sent: number;
  /** The largest `bufferedAmount` seen: what the backend had to keep because its peer read slowly. */
  maxBuffered: number;
  /** The SHA-256 of everything sent, once all N bytes are. */
  digest?: string;
  /** Resolves with the close code the backend got. */
  closed: Promise<number>;
}

export interface FloodBackend {
  /** `127.0.0.1:port`, as a route's backend. */
  address: string;
  /** One per /flood connection, in order of arrival. */
  floods: Flood[];
  /** One per /sink connection: paused from the start, it reads nothing. */
  sinks: WebSocket[];
  /** The request headers of every upgrade, in order of arrival. */
  upgrades: IncomingHttpHeaders[];
}

const messageBytes = 64 * 1024;

/** Message `index` of a flood: its number, then bytes that depend on it, so a reordering shows in the hash. */
function floodMessage(index: number, size: number): Buffer {
  const message = Buffer.alloc(size, (index * 7) & 0xff);
  if (size >= 4) message.writeUInt32BE(index);
  return message;
}

export async function startFloodBackend(t: ExecutionContext, highWater: number): Promise<FloodBackend> {
  const floods: Flood[] = [];
  const sinks: WebSocket[] = [];
  const upgrades: IncomingHttpHeaders[] = [];
  const server = createServer();
  // The last subprotocol offered is chosen, so a test sees the backend's choice reach the client.
  const webSockets = new WebSocketServer({ server, perMessageDeflate: false, handleProtocols: (offered) => [...offered].at(-1) ?? false });
  webSockets.on('connection', (socket, request) => {
    upgrades.push(request.headers);
    const url = new URL(request.url ?? '/', 'http://backend');
    if (url.pathname === '/sink') {
      socket.pause();
      sinks.push(socket);
      return;
    }
    const total = Number(url.searchParams.get('bytes'));
    const flood: Flood = { socket, sent: 0, maxBuffered: 0, closed: new Promise((resolve) => socket.on('close', resolve)) };
    floods.push(flood);
    const hash = createHash('sha256');
    let index = 0;
    const pump = () => {
      while (flood.sent < total && socket.readyState === WebSocket.OPEN) {
        const message = floodMessage(index++, Math.min(messageBytes, total - flood.sent));
        hash.update(message);
        flood.sent += message.length;
        if (flood.sent === total) flood.digest = hash.digest('hex');
        const full = socket.bufferedAmount + message.length >= highWater;
        // The callback comes once this message is in the kernel's buffer, all before it too.
        socket.send(message, { binary: true }, full ? () => pump() : undefined);
        flood.maxBuffered = Math.max(flood.maxBuffered, socket.bufferedAmount);
        if (full) return;
      }
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const client of webSockets.clients) client.terminate();
        webSockets.close();
        server.close(() => resolve());
      }),
  );
  return { address: `127.0.0.1:${(server.address() as AddressInfo).port}`, floods, sinks, upgrades };
}
