// WebSocket backpressure through certhub-agent proxy, real proxy process, real
// ws backend: a client that does not read makes the proxy stop reading the backend, so the backend
// is held back and the proxy's memory stays bounded with the relay open; a client that floods a
// backend that does not read is closed with 1013, since uWS cannot stop reading a client.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import WebSocket from 'ws';
import { loopbackLookup, proxiedWebSocket } from '../../helpers/agent-proxy.js';
import { startTwoRouteProxy } from '../../helpers/two-route-proxy.js';
import { eventually } from '../../helpers/fixture-host.js';
import { residentBytes } from '../../helpers/fuzz-run.js';
import { startFloodBackend, type Flood } from '../helpers/websocket-flood-backend.js';

const mib = 2 ** 20;
/** websocket_max_buffered_bytes in these tests. */
const bound = mib;
/** What the backend keeps in its own send buffer before it waits: reached only if the proxy holds it back. */
const backendHighWater = 8 * mib;
/**
 * More than everything between the backend and a client that does not read can hold without the
 * pause: the kernel's buffers of two loopback connections (a few MiB each way), the bound, and
 * the backend's own high water.
 */
const floodBytes = 96 * mib;

/** Until the backend's flood has its high water waiting in its own buffer; the deadline only ends a test that would never get there. */
function heldBack(flood: () => Flood | undefined): Promise<boolean> {
  return eventually(() => Promise.resolve((flood()?.socket.bufferedAmount ?? 0) >= backendHighWater - 128 * 1024), 60_000);
}

test("a client that does not read holds the backend back: the relay stays open, the proxy's memory stays bounded, and every byte arrives in order once it reads", async (t) => {
  const backend = await startFloodBackend(t, backendHighWater);
  const { proxy } = await startTwoRouteProxy(t, { config: { websocket_max_buffered_bytes: bound }, alphaRoute: { backend: backend.address } });
  const pid = proxy.process.child.pid!;
  const before = await residentBytes(pid);
  const client = await proxiedWebSocket(proxy.port, 'alpha.test', `/flood?bytes=${floodBytes}`);
  client.pause();
  const hash = createHash('sha256');
  let received = 0;
  let closedEarly: number | undefined;
  client.on('message', (data) => {
    // The default binaryType: each message is one Buffer.
    hash.update(data as Buffer);
    received += (data as Buffer).length;
  });
  client.on('close', (code) => {
    if (received < floodBytes) closedEarly = code;
  });
  const flood = () => backend.floods[0];

  t.true(await heldBack(flood), `the backend was never held back (its largest buffer: ${flood()?.maxBuffered ?? 0} bytes)`);
  // Held, not just slow: for a second its buffer does not go down and it sends nothing more; and the
  // relay is paused, not cut.
  const sentThen = flood()!.sent;
  await sleep(1000);
  const during = await residentBytes(pid);
  t.is(flood()!.sent, sentThen, 'the backend went on sending');
  t.true(flood()!.socket.bufferedAmount >= backendHighWater - 128 * 1024);
  t.true(sentThen < floodBytes, 'the backend could send everything');
  // A paused client would not see its connection closed: the backend would, by the close relayed to it.
  t.is(flood()!.socket.readyState, WebSocket.OPEN, 'the relay was closed');
  t.is(closedEarly, undefined, 'the relay was closed');
  t.log(
    `backend held back at ${(flood()!.sent / mib).toFixed(1)} MiB sent, ${(flood()!.maxBuffered / mib).toFixed(1)} MiB in its buffer; proxy RSS ${(before / mib).toFixed(1)} -> ${(during / mib).toFixed(1)} MiB`,
  );
  // Without the pause everything the backend sends (96 MiB) would wait in the proxy. What grows with
  // it is the bound, the first relay's own cost (TLS, buffers) and garbage not yet collected: about
  // 10 MiB measured at a bound of 1 MiB, 35 MiB and more on the code before the pause.
  t.true(during - before < 24 * bound, `the proxy's RSS grew by ${((during - before) / mib).toFixed(1)} MiB`);

  client.resume();
  t.true(
    await eventually(() => Promise.resolve(received === floodBytes || client.readyState !== WebSocket.OPEN), 120_000),
    `received ${received} of ${floodBytes} bytes`,
  );
  t.is(received, floodBytes);
  t.is(closedEarly, undefined);
  t.is(hash.digest('hex'), flood()!.digest ?? 'the backend did not send everything');
  client.close(1000);
});

test('a paused relay whose client reads nothing for websocket_idle_seconds is closed, and the backend sees the close', async (t) => {
  const backend = await startFloodBackend(t, backendHighWater);
  const { proxy } = await startTwoRouteProxy(t, {
    config: { websocket_max_buffered_bytes: bound, websocket_idle_seconds: 2 },
    alphaRoute: { backend: backend.address },
  });
  const client = await proxiedWebSocket(proxy.port, 'alpha.test', `/flood?bytes=${floodBytes}`);
  client.pause();
  t.teardown(() => client.terminate());
  const flood = () => backend.floods[0];
  t.true(await heldBack(flood));
  t.is(await flood()!.closed, 1000);
  await proxy.process.waitFor(/idle WebSocket closed/);
});

test('a client that floods a backend that does not read is closed with 1013: the proxy cannot stop reading a client', async (t) => {
  const backend = await startFloodBackend(t, backendHighWater);
  const { proxy } = await startTwoRouteProxy(t, { config: { websocket_max_buffered_bytes: bound }, alphaRoute: { backend: backend.address } });
  const client = await proxiedWebSocket(proxy.port, 'alpha.test', '/sink');
  const closed = new Promise<number>((resolve) => client.on('close', resolve));
  const message = Buffer.alloc(64 * 1024, 3);
  // Far more than the backend's socket buffers and the bound: the close must come before.
  const limit = 1024 * mib;
  let sent = 0;
  const pumped = new Promise<void>((resolve) => {
    // Each message once the one before is written, from setImmediate: the client reads between two
    // sends, so it sees the close (a chain of write callbacks alone would never let it read).
    const pump = () => {
      if (client.readyState !== WebSocket.OPEN || sent >= limit) return resolve();
      sent += message.length;
      client.send(message, () => setImmediate(pump));
    };
    pump();
  });
  // A close that has not come 10 s after the limit is not coming.
  const code = await Promise.race([closed, pumped.then(() => sleep(10_000))]);
  t.is(code, 1013, `sent ${(sent / mib).toFixed(1)} MiB\n${proxy.process.stderr()}`);
  t.true(sent < limit);
  t.is(backend.sinks.length, 1);
  await proxy.process.waitFor(/the backend reads slower than the client sends/);
});

test("through ws, the backend still gets the client's headers and subprotocols, and the client gets the backend's choice", async (t) => {
  const backend = await startFloodBackend(t, backendHighWater);
  const { proxy } = await startTwoRouteProxy(t, { alphaRoute: { backend: backend.address } });
  const client = new WebSocket(`wss://alpha.test:${proxy.port}/flood?bytes=0`, ['one', 'two'], {
    lookup: loopbackLookup,
    rejectUnauthorized: false,
    headers: { 'x-test': 'kept', cookie: 'a=1' },
  });
  await new Promise((resolve, reject) => {
    client.once('open', resolve);
    client.once('error', reject);
  });
  t.teardown(() => client.terminate());
  t.is(client.protocol, 'two');
  t.like(backend.upgrades[0], {
    host: `alpha.test:${proxy.port}`,
    'sec-websocket-protocol': 'one,two',
    'x-test': 'kept',
    cookie: 'a=1',
    'x-forwarded-proto': 'https',
    'x-forwarded-host': `alpha.test:${proxy.port}`,
    'x-forwarded-for': '127.0.0.1',
  });
});
