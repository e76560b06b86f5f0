// Routes with several backends through certhub-agent proxy, against real backends (Node HTTP and
// HTTPS servers): the balancing policies, an active health check that takes a killed backend out of
// use and brings it back, the 503 when none is up, https:// backends verified against a CA and a
// name (wss through them), and the access log with the X-Request-Id the backend saw.
import { readFile, writeFile } from 'node:fs/promises';
import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { WebSocketServer } from 'ws';
import { bodyText, proxiedRequest, proxiedWebSocket, startProxyTo, temporaryDir } from '../../helpers/agent-proxy.js';
import { testChain } from '../../helpers/certificates.js';

interface Backend {
  name: string;
  port: number;
  /** X-Request-Id of each request it answered, in order. */
  requestIds: string[];
  hits: number;
  /** Stops listening and cuts every connection, as a crashed backend. */
  kill(): Promise<void>;
  /** Listens again on the same port. */
  revive(): Promise<void>;
}

/** Answers `<name> <path>`; /slow answers after `slowMs`. */
async function startBackend(t: ExecutionContext, name: string, options: { tls?: { certPem: string; keyPem: string }; slowMs?: number } = {}): Promise<Backend> {
  const requestIds: string[] = [];
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    backend.hits++;
    requestIds.push(String(request.headers['x-request-id'] ?? ''));
    const answer = () => response.end(`${name} ${request.url}`);
    if (request.url === '/slow') setTimeout(answer, options.slowMs ?? 2000);
    else answer();
  };
  const make = (): Server => (options.tls === undefined ? createHttp(handler) : createHttps({ cert: options.tls.certPem, key: options.tls.keyPem }, handler));
  let server = make();
  const listen = (port: number) => new Promise<number>((resolve) => server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
  const port = await listen(0);
  if (options.tls !== undefined) attachEcho(server);
  const backend: Backend = {
    name,
    port,
    requestIds,
    hits: 0,
    kill: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    revive: async () => {
      server = make();
      await listen(port);
    },
  };
  t.teardown(() => backend.kill());
  return backend;
}

function attachEcho(server: Server): void {
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (socket) => socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary })));
}

async function get(port: number, path = '/'): Promise<{ status: number; body: string }> {
  const response = await proxiedRequest(port, 'app.test', { path });
  return { status: response.statusCode ?? 0, body: await bodyText(response) };
}

const local = (backend: Backend, scheme = '') => `${scheme}127.0.0.1:${backend.port}`;

test('round_robin takes each backend in turn; first_available keeps to the first', async (t) => {
  const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((name) => startBackend(t, name)));
  const round = await startProxyTo(t, { backends: [local(a!), local(b!), local(c!)] }, { backend_connections: 4 });
  const names: string[] = [];
  for (let index = 0; index < 9; index++) names.push((await get(round.port)).body.split(' ')[0]!);
  t.deepEqual(names, ['a', 'b', 'c', 'a', 'b', 'c', 'a', 'b', 'c']);
  const first = await startProxyTo(t, { backends: [local(a!), local(b!)], policy: 'first_available' });
  for (let index = 0; index < 4; index++) t.is((await get(first.port)).body, 'a /');
});

test('least_connections sends requests past a backend busy with a slow one', async (t) => {
  const a = await startBackend(t, 'a', { slowMs: 60_000 });
  const b = await startBackend(t, 'b');
  const proxy = await startProxyTo(t, { backends: [local(a), local(b)], policy: 'least_connections' }, { backend_connections: 4 });
  // The slow request holds a's only request in flight until the test ends.
  void proxiedRequest(proxy.port, 'app.test', { path: '/slow' }).catch(() => {});
  while (a.hits === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  const bodies: string[] = [];
  for (let index = 0; index < 6; index++) bodies.push((await get(proxy.port)).body);
  t.deepEqual(bodies, Array(6).fill('b /'));
});

test('a backend killed mid-run: once its health check marks it down no request fails, it gets none, and it is used again once it is back', async (t) => {
  const [a, b] = await Promise.all([startBackend(t, 'a'), startBackend(t, 'b')]);
  const proxy = await startProxyTo(
    t,
    { backends: [local(a), local(b)], health_check: { path: '/health', interval_seconds: 1, unhealthy_threshold: 2, healthy_threshold: 2 } },
    { backend_connections: 4 },
  );
  for (let index = 0; index < 4; index++) t.is((await get(proxy.port)).status, 200);
  await a.kill();
  await proxy.process.waitFor(/backend down: its health checks fail.*backend=127\.0\.0\.1:\d+/, 30_000);
  const hitsOfA = a.hits;
  const after = await Promise.all(Array.from({ length: 40 }, () => get(proxy.port)));
  t.deepEqual(
    after.map(({ status }) => status),
    Array(40).fill(200),
  );
  t.true(after.every(({ body }) => body === 'b /'));
  t.is(a.hits, hitsOfA);
  await a.revive();
  await proxy.process.waitFor(/backend up: its health checks pass again/, 30_000);
  const names = new Set<string>();
  for (let index = 0; index < 6; index++) names.add((await get(proxy.port)).body);
  t.deepEqual([...names].sort(), ['a /', 'b /']);
});

test('with no backend up the client gets 503 with Retry-After; a lone backend that refuses is 502 at once', async (t) => {
  const [a, b] = await Promise.all([startBackend(t, 'a'), startBackend(t, 'b')]);
  const proxy = await startProxyTo(t, { backends: [local(a), local(b)], health_check: { interval_seconds: 1, unhealthy_threshold: 1 } });
  await Promise.all([a.kill(), b.kill()]);
  await proxy.process.waitFor(/backend down[^\n]*\n(?:.*\n)*.*backend down/, 30_000);
  const response = await proxiedRequest(proxy.port, 'app.test', { path: '/' });
  t.is(response.statusCode, 503);
  t.is(response.headers['retry-after'], '5');
  t.regex(await bodyText(response), /is down/);
  const lone = await startBackend(t, 'lone');
  await lone.kill();
  const single = await startProxyTo(t, local(lone));
  t.is((await get(single.port)).status, 502);
});

test('https:// backends: verified against backend_tls.ca_file and servername, refused (502) without the CA, accepted with verify: false; WebSockets go as wss', async (t) => {
  const now = Date.now();
  const chain = await testChain('backend.internal', { notBefore: new Date(now - 3_600_000), notAfter: new Date(now + 86_400_000) });
  const dir = await temporaryDir(t, 'https-backend-');
  const caFile = join(dir, 'ca.pem');
  await writeFile(caFile, chain.caPem);
  const backend = await startBackend(t, 'secure', { tls: chain });
  const verified = await startProxyTo(t, { backend: local(backend, 'https://'), backend_tls: { ca_file: caFile, servername: 'backend.internal' } });
  t.deepEqual(await get(verified.port, '/x'), { status: 200, body: 'secure /x' });
  const socket = await proxiedWebSocket(verified.port, 'app.test', '/echo');
  const echoed = await new Promise<string>((resolve, reject) => {
    socket.once('message', (data: Buffer) => resolve(data.toString()));
    socket.once('error', reject);
    socket.send('over wss');
  });
  socket.close();
  t.is(echoed, 'over wss');

  const unverified = await startProxyTo(t, { backend: local(backend, 'https://') });
  t.is((await get(unverified.port)).status, 502);
  await unverified.process.waitFor(/backend unreachable.*(self-signed|unable to verify|certificate)/i);
  const wrongName = await startProxyTo(t, { backend: local(backend, 'https://'), backend_tls: { ca_file: caFile, servername: 'other.internal' } });
  t.is((await get(wrongName.port)).status, 502);
  const unchecked = await startProxyTo(t, { backend: local(backend, 'https://'), backend_tls: { verify: false } });
  t.is((await get(unchecked.port)).status, 200);
});

test('the access log: a JSON line per request with the request id the backend got, or the combined format', async (t) => {
  const backend = await startBackend(t, 'a');
  const dir = await temporaryDir(t, 'access-log-');
  const jsonFile = join(dir, 'access.json');
  const json = await startProxyTo(t, local(backend), { access_log: { path: jsonFile, format: 'json' } });
  t.is((await get(json.port, '/one?x=1')).status, 200);
  const response = await proxiedRequest(json.port, 'app.test', { path: '/two', headers: { 'x-request-id': 'forged', 'user-agent': 'test "agent"' } });
  await bodyText(response);
  const lines = await eventuallyLines(jsonFile, 2);
  const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  t.like(records[0], {
    method: 'GET',
    target: '/one?x=1',
    host: `app.test:${json.port}`,
    status: 200,
    bytes: 'a /one?x=1'.length,
    backend: local(backend),
    client: '127.0.0.1',
  });
  t.like(records[1], { target: '/two', user_agent: 'test "agent"' });
  t.deepEqual(
    records.map((record) => record.request_id),
    backend.requestIds,
  );
  t.regex(String(records[1]!.request_id), /^[0-9a-f-]{36}$/, "a client's own X-Request-Id is replaced");

  const combinedFile = join(dir, 'access.log');
  const combined = await startProxyTo(t, local(backend), { access_log: { path: combinedFile, format: 'combined' } });
  await proxiedRequest(combined.port, 'app.test', { path: '/three', headers: { 'user-agent': 'curl/8 "x"', referer: 'https://app.test/' } }).then(bodyText);
  const [line] = await eventuallyLines(combinedFile, 1);
  t.regex(
    line!,
    /^127\.0\.0\.1 - - \[\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000\] "GET \/three HTTP\/1\.1" 200 8 "https:\/\/app\.test\/" "curl\/8 \\x22x\\x22" "[0-9a-f-]{36}"$/,
  );
});

/** The first `count` lines of a file the proxy appends to (written a moment after the answer). */
async function eventuallyLines(path: string, count: number): Promise<string[]> {
  for (;;) {
    const lines = (await readFile(path, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '');
    if (lines.length >= count) return lines.slice(0, count);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
