// Raw node:net servers on a free loopback port that play a netspeed server up to a chosen request and
// then stop: the ground for the client's deadlines. Closed (and every connection with them) at teardown.
import { connect, createServer, type Socket } from 'node:net';
import type { ExecutionContext } from 'ava';
import { startProcess } from './process.js';

/**
 * Where the server stops: `accept` accepts and never answers anything; `download` answers the info
 * and pings, then sends a download's headers and part of its body and goes silent; `upload` answers
 * everything before the upload, whose body it never reads.
 */
export type StallPoint = 'accept' | 'download' | 'upload';

const info = JSON.stringify({
  version: 'test',
  server: 'netspeed',
  name: 'Stalling',
  test_duration: 8,
  max_download_bytes: 100_000_000,
  max_upload_bytes: 100_000_000,
});

/** Starts the server; resolves with its `host:port`. */
export async function startStallingServer(t: ExecutionContext, stallAt: StallPoint): Promise<string> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (stallAt !== 'accept') answerRequests(socket, stallAt);
  });
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the stalling server has no port');
  return `127.0.0.1:${address.port}`;
}

/** Reads request heads off `socket` (keep-alive) and answers each until the stall point. */
function answerRequests(socket: Socket, stallAt: Exclude<StallPoint, 'accept'>): void {
  let pending = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      const end = pending.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = pending.subarray(0, end).toString('latin1');
      pending = pending.subarray(end + 4);
      const [method = '', target = ''] = head.split(' ');
      const path = target.split('?')[0];
      if (path === '/api/info') socket.write(json(info));
      else if (path === '/api/ping') socket.write(json(JSON.stringify({ timestamp: Date.now() / 1000 })));
      else if (path === '/api/download') {
        const size = Number(new URL(target, 'http://x').searchParams.get('size'));
        socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: ${size}\r\n\r\n`);
        // Part of the body, then silence: the connection stays open.
        socket.write(Buffer.alloc(stallAt === 'download' ? Math.floor(size / 2) : size));
      } else if (method === 'POST' && path === '/api/upload') {
        // Every stall point comes before an upload's end: its body is never read.
        socket.off('data', onData);
        socket.pause();
        return;
      } else socket.write('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
    }
  };
  socket.on('data', onData);
}

function json(body: string): string {
  return `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/**
 * A listening port that never completes a connection: a socket with a backlog of one that never
 * accepts, its queue filled by one connection made here. Linux drops further SYNs while the queue is
 * full, so a client stays connecting. (Node's servers always accept, hence python3.)
 */
export async function startUnconnectableServer(t: ExecutionContext): Promise<string> {
  const listener = startProcess(t, 'python3', [
    '-c',
    'import socket, time\ns = socket.socket()\ns.bind(("127.0.0.1", 0))\ns.listen(0)\nprint(s.getsockname()[1], flush=True)\ntime.sleep(3600)',
  ]);
  const [, port] = await listener.waitFor(/^(\d+)$/m);
  const filler = connect(Number(port), '127.0.0.1');
  t.teardown(() => void filler.destroy());
  await new Promise<void>((resolve, reject) => filler.once('connect', resolve).once('error', reject));
  return `127.0.0.1:${port}`;
}
