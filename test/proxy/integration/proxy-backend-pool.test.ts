// The proxy's backend pool against a raw TCP backend on loopback: a kept-alive connection carries one
// request after another; one the backend closes while idle is forgotten; one it closes just as a
// request goes out is retried once on a new connection. The pool adds a connection's listeners once,
// when it is made: these are the connection life cycles that this design must keep working.
import { createServer, type Server, type Socket } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { BackendPool, type BackendError, type ExchangeHandler } from '../../../actors/proxy/proxy-front/backend-pool.js';
import type { ResponseHead } from '../../../actors/proxy/proxy-front/response-parser.js';

const okResponse = 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok';

interface RawBackend {
  port: number;
  /** Every connection accepted so far, in order. */
  connections: Socket[];
}

/** `answer` is called at each request head a connection receives, with that connection's request count. */
async function rawBackend(t: ExecutionContext, answer: (socket: Socket, requestOnConnection: number) => void): Promise<RawBackend> {
  const connections: Socket[] = [];
  const server: Server = createServer((socket) => {
    connections.push(socket);
    let requests = 0;
    let pending = '';
    socket.setEncoding('latin1').on('data', (text: string) => {
      pending += text;
      for (let end = pending.indexOf('\r\n\r\n'); end !== -1; end = pending.indexOf('\r\n\r\n')) {
        pending = pending.slice(end + 4);
        answer(socket, ++requests);
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of connections) socket.destroy();
    server.close();
  });
  return { port: (server.address() as { port: number }).port, connections };
}

/** One GET through the pool: the status and body, or the error the pool reported. */
function get(pool: BackendPool, path: string): Promise<{ status: number; body: string } | { error: BackendError }> {
  return new Promise((resolve) => {
    let status = 0;
    let body = '';
    const handler: ExchangeHandler = {
      onRequestStart: () => {},
      onResponseStart: (_controller, head: ResponseHead) => {
        status = head.statusCode;
      },
      onResponseData: (_controller, chunk) => {
        body += chunk.toString('latin1');
      },
      onResponseEnd: () => resolve({ status, body }),
      onResponseError: (_controller, error) => resolve({ error }),
    };
    pool.dispatch({ method: 'GET', path, headers: ['host', 'backend.test'], body: null }, handler);
  });
}

function onePool(t: ExecutionContext, port: number): BackendPool {
  const pool = new BackendPool({ host: '127.0.0.1', port, label: `127.0.0.1:${port}`, connections: 1, headersTimeoutMs: 10_000, maxQueued: 16 });
  t.teardown(() => pool.close());
  return pool;
}

test('one kept-alive connection carries 200 requests in turn; one the backend closes while idle is forgotten and the next request opens another', async (t) => {
  const backend = await rawBackend(t, (socket) => socket.write(okResponse));
  const pool = onePool(t, backend.port);
  for (let index = 0; index < 200; index++) t.deepEqual(await get(pool, `/${index}`), { status: 200, body: 'ok' });
  t.is(backend.connections.length, 1);

  const closed = new Promise((resolve) => backend.connections[0]!.once('close', resolve));
  backend.connections[0]!.destroy();
  await closed;
  // The pool learns of the close from its idle connection's own events, before any request uses it.
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.deepEqual(await get(pool, '/after-close'), { status: 200, body: 'ok' });
  t.is(backend.connections.length, 2);
  t.is(pool.queued, 0);
});

test('a kept-alive connection the backend closes as the next request arrives is retried once on a new connection', async (t) => {
  // The first connection answers its first request, then drops the second unanswered (a backend's idle timeout racing the request).
  const backend = await rawBackend(t, (socket, requestOnConnection) => {
    if (backend.connections.indexOf(socket) === 0 && requestOnConnection === 2) socket.destroy();
    else socket.write(okResponse);
  });
  const pool = onePool(t, backend.port);
  t.deepEqual(await get(pool, '/first'), { status: 200, body: 'ok' });
  t.deepEqual(await get(pool, '/second'), { status: 200, body: 'ok' });
  t.is(backend.connections.length, 2);
  t.deepEqual(await get(pool, '/third'), { status: 200, body: 'ok' });
  t.is(backend.connections.length, 2, 'the new connection is kept alive in turn');
});

test('a backend that sends bytes nobody asked for on an idle connection loses that connection, not the next answer', async (t) => {
  const backend = await rawBackend(t, (socket) => socket.write(okResponse));
  const pool = onePool(t, backend.port);
  t.deepEqual(await get(pool, '/first'), { status: 200, body: 'ok' });
  backend.connections[0]!.write('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nstale');
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.deepEqual(await get(pool, '/second'), { status: 200, body: 'ok' });
  t.is(backend.connections.length, 2);
});

test.serial('requests in flight and queued arm no timer each: one deadline watch fails those left unanswered past the timeout, then stops', async (t) => {
  const backend = await rawBackend(t, () => {});
  const headersTimeoutMs = 300;
  const pool = new BackendPool({ host: '127.0.0.1', port: backend.port, label: 'backend', connections: 8, headersTimeoutMs, maxQueued: 16 });
  t.teardown(() => pool.close());
  const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
  const timersBefore = timers();
  const sentAt = Date.now();
  // 8 on the connections, 4 queued behind them.
  const answers = Array.from({ length: 12 }, (_, index) => get(pool, `/${index}`));
  t.is(pool.queued, 4);
  t.is(timers() - timersBefore, 1, 'one timer for the pool, not one per request');
  const results = await Promise.all(answers);
  t.true(Date.now() - sentAt >= headersTimeoutMs, 'no request fails before its deadline');
  t.deepEqual(
    results.map((result) => ('error' in result ? result.error.kind : result.status)),
    Array.from({ length: 12 }, () => 'timeout'),
  );
  t.is(timers(), timersBefore, 'the watch stops once nothing waits');
});
