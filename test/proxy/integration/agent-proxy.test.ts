// certhub-agent proxy over real sockets: two names on one port (two front threads), each with its own
// certificate and backend; refusals; the 502 page; WebSocket relay; the HTTPS redirect; config errors.
import { createHash } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { WebSocket } from 'undici';
import { proxyRoutesSchema } from '../../../actors/proxy/agent-exports.js';
import { proxyConfigSchema } from '../../../actors/proxy/config.js';
import {
  bodyText,
  curlResolve,
  presentedCertificate,
  proxiedRequest,
  loopbackDispatcher,
  startAgentProxy,
  temporaryDir,
  writeTestMaterial,
} from '../../helpers/agent-proxy.js';
import { routeToken, startTwoRouteProxy } from '../../helpers/two-route-proxy.js';
import { projectPath, runToEnd, startProcess } from '../../helpers/process.js';
import { downloadDigest, downloadStream, startProxyBackend } from '../../helpers/proxy-backend.js';
import { reservePort } from '../../../src/http/port.js';

const token = routeToken;

/** Two routes on two threads (the default here): a test asks for one thread where it counts connections. */
function twoDomainProxy(t: ExecutionContext, config: object = {}) {
  return startTwoRouteProxy(t, { config: { threads: 2, ...config } });
}

test("two names on one port: curl gets each its own certificate and its own backend; X-Forwarded-* are the proxy's", async (t) => {
  const { proxy } = await twoDomainProxy(t);
  for (const name of ['alpha', 'beta']) {
    const result = await curlResolve(`${name}.test`, proxy.port, '/whoami', [
      '-H',
      'X-Forwarded-For: 203.0.113.9',
      '-H',
      'X-Forwarded-Proto: http',
      '-H',
      'X-Forwarded-Host: evil.example',
    ]);
    t.is(result.code, 0, result.stderr);
    t.regex(result.stderr, new RegExp(`subject: CN=${name}\\.test`));
    const seen = JSON.parse(result.stdout) as { name: string; headers: Record<string, string> };
    t.is(seen.name, name);
    t.is(seen.headers['host'], `${name}.test:${proxy.port}`);
    t.is(seen.headers['x-forwarded-for'], '127.0.0.1');
    t.is(seen.headers['x-forwarded-proto'], 'https');
    t.is(seen.headers['x-forwarded-host'], `${name}.test:${proxy.port}`);
  }
  // Keep-alive: many requests on one connection, spread over both names' backends.
  const many = await curlResolve('alpha.test', proxy.port, '/whoami', [
    '--resolve',
    `beta.test:${proxy.port}:127.0.0.1`,
    `https://alpha.test:${proxy.port}/whoami`,
    `https://beta.test:${proxy.port}/whoami`,
  ]);
  t.is(many.code, 0, many.stderr);
  t.deepEqual(
    many.stdout.split('}{').map((part) => /"name":"(\w+)"/.exec(part)?.[1]),
    ['alpha', 'beta', 'alpha'],
  );
});

test('an unknown name, or none, is refused at the handshake; a Host of another name on a connection is 421', async (t) => {
  const { proxy } = await twoDomainProxy(t);
  const unknown = await curlResolve('gamma.test', proxy.port, '/whoami');
  t.is(unknown.code, 35, 'curl reports a failed TLS handshake');
  await t.throwsAsync(presentedCertificate(proxy.port, ''));
  const misdirected = await proxiedRequest(proxy.port, 'alpha.test', { path: '/whoami', headers: { host: 'beta.test' } });
  t.is(misdirected.statusCode, 421);
  await bodyText(misdirected);
  t.is((await presentedCertificate(proxy.port, 'alpha.test')).subject, 'CN=alpha.test', 'the proxy still serves after the refusals');
});

test('a backend that is down gets a 502 page and a log line naming it; the other route still works', async (t) => {
  const { proxy, beta } = await twoDomainProxy(t);
  beta.close();
  const down = await proxiedRequest(proxy.port, 'beta.test', { path: '/whoami' });
  t.is(down.statusCode, 502);
  t.regex(down.headers['content-type'] ?? '', /text\/html/);
  t.regex(await bodyText(down), /502 Bad Gateway/);
  await proxy.process.waitFor(new RegExp(`backend unreachable.*domain=beta\\.test.*backend=${beta.address.replace(/\./g, '\\.')}`));
  const up = await proxiedRequest(proxy.port, 'alpha.test', { path: '/whoami' });
  t.is(up.statusCode, 200);
  t.like(JSON.parse(await bodyText(up)), { name: 'alpha' });
});

test('chunked bodies both ways: a client upload without a length, a backend response without one', async (t) => {
  const { proxy } = await twoDomainProxy(t, { threads: 1 });
  const bytes = 3_000_000;
  const text = 'chunked upload through the proxy\n'.repeat(100_000);
  const upload = await runToEnd(
    'curl',
    [
      '-sS',
      '-k',
      '--resolve',
      `alpha.test:${proxy.port}:127.0.0.1`,
      '-H',
      'Transfer-Encoding: chunked',
      '--data-binary',
      '@-',
      `https://alpha.test:${proxy.port}/upload`,
    ],
    {},
    text,
  );
  t.is(upload.code, 0, upload.stderr);
  t.deepEqual(JSON.parse(upload.stdout), { name: 'alpha', bytes: text.length, sha256: createHash('sha256').update(text).digest('hex') });
  const download = await proxiedRequest(proxy.port, 'beta.test', { path: `/chunked?bytes=${bytes}` });
  t.is(download.headers['transfer-encoding'], 'chunked');
  const hash = createHash('sha256');
  for await (const chunk of download) hash.update(chunk as Buffer);
  t.is(hash.digest('hex'), await downloadDigest(bytes));
});

test('clients and backends that stop half-way: the client gets what there is, and the proxy keeps serving', async (t) => {
  const { proxy } = await twoDomainProxy(t, { threads: 1 });
  // The backend answers 413 and closes while the upload is still coming. Whether its answer is read
  // before its reset (502 otherwise), and whether the client sees it before its own connection is
  // closed mid-upload, is up to TCP's timing; the proxy must only stay up.
  const refused = await proxiedRequest(proxy.port, 'alpha.test', {
    method: 'POST',
    path: '/refuse',
    headers: { 'content-length': String(50_000_000) },
    body: downloadStream(50_000_000),
  }).catch((error: NodeJS.ErrnoException) => error);
  if (refused instanceof Error) t.regex(refused.message, /ECONNRESET|EPIPE|socket hang up/);
  else {
    t.true([413, 502].includes(refused.statusCode!), `status ${refused.statusCode}`);
    refused.resume();
  }
  // A client that leaves in the middle of a download.
  const download = await proxiedRequest(proxy.port, 'alpha.test', { path: '/download?bytes=100000000' });
  await new Promise((resolve) => download.once('data', resolve));
  download.destroy();
  // A client that leaves in the middle of an upload.
  const body = downloadStream(100_000_000);
  const upload = proxiedRequest(proxy.port, 'alpha.test', { method: 'POST', path: '/upload', headers: { 'content-length': String(100_000_000) }, body });
  upload.catch(() => {});
  await new Promise((resolve) => body.once('data', resolve));
  body.unpipe();
  body.destroy();

  for (const name of ['alpha', 'beta']) {
    const after = await proxiedRequest(proxy.port, `${name}.test`, { path: '/whoami' });
    t.is(after.statusCode, 200);
    t.like(JSON.parse(await bodyText(after)), { name });
  }
  t.notRegex(proxy.process.stderr(), /crashed|restarting/);
});

test('a backend that closes kept-alive connections while idle: the proxy forgets them and opens new ones', async (t) => {
  // node:http, and a connection closed by the backend 100 ms after each answer.
  const backend = createHttpServer((request, response) => {
    request.resume();
    response.end(`seen on connection ${request.socket.remotePort}`, () => setTimeout(() => request.socket.destroy(), 100));
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  t.teardown(() => backend.close());
  const materialDir = await temporaryDir(t, 'agent-proxy-material-');
  await writeTestMaterial(materialDir, 'alpha.test', '0a');
  const address = backend.address() as AddressInfo;
  const proxy = await startAgentProxy(t, {
    server: 'https://certhub.example.test/',
    fetch: false,
    routes: { 'alpha.test': { backend: `127.0.0.1:${address.port}`, token } },
    host: '127.0.0.1',
    port: 0,
    material_dir: materialDir,
    threads: 1,
  });
  const ask = async () => {
    const response = await proxiedRequest(proxy.port, 'alpha.test', { path: '/' });
    t.is(response.statusCode, 200);
    return bodyText(response);
  };
  const firstConnection = new Promise<Socket>((resolve) => backend.once('connection', resolve));
  const first = await ask();
  const socket = await firstConnection;
  if (!socket.destroyed) await new Promise((resolve) => socket.once('close', resolve));
  const later = await ask();
  t.not(later, first, 'the closed connection was forgotten and a new one opened');
  t.notRegex(proxy.process.stderr(), /backend unreachable/);
});

test('a backend that accepts but does not answer within backend_timeout_seconds gets the client a 504', async (t) => {
  const { proxy } = await twoDomainProxy(t, { threads: 1, backend_timeout_seconds: 1 });
  const response = await proxiedRequest(proxy.port, 'alpha.test', { path: '/hang' });
  t.is(response.statusCode, 504);
  t.regex(await bodyText(response), /504 Gateway Timeout/);
  await proxy.process.waitFor(/backend did not answer in time.*domain=alpha\.test/);
});

test('a WebSocket through the proxy: text and binary messages come back as sent, and a close is passed on', async (t) => {
  // The relay's idle timeout is the only other thing that would end the backend's side: the client's
  // close must reach the backend before it could.
  const idleSeconds = 15;
  const { proxy, beta } = await twoDomainProxy(t, { websocket_idle_seconds: idleSeconds });
  const dispatcher = loopbackDispatcher(t);
  const socket = new WebSocket(`wss://beta.test:${proxy.port}/echo`, { dispatcher });
  socket.binaryType = 'arraybuffer';
  const received: (string | ArrayBuffer)[] = [];
  const closed = new Promise<number>((resolve) => socket.addEventListener('close', (event) => resolve(event.code)));
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve());
    socket.addEventListener('error', () => reject(new Error('the WebSocket did not open')));
  });
  const gotTwo = new Promise<void>((resolve) =>
    socket.addEventListener('message', (event) => {
      received.push(event.data as string | ArrayBuffer);
      if (received.length === 2) resolve();
    }),
  );
  socket.send('hello through the proxy');
  socket.send(new Uint8Array([0, 1, 2, 254, 255]));
  await gotTwo;
  t.is(received[0], 'hello through the proxy');
  t.deepEqual([...new Uint8Array(received[1] as ArrayBuffer)], [0, 1, 2, 254, 255]);
  socket.close(4001, 'done');
  t.is(await closed, 4001);
  t.deepEqual(await beta.webSocketClosed(1, idleSeconds * 1000), { code: 4001, reason: 'done' }, "the backend got the client's close, code and reason");
});

test('the plain listener redirects a routed name to HTTPS with path and query, and answers 404 for others', async (t) => {
  const redirectPort = await reservePort('127.0.0.1');
  const { proxy } = await twoDomainProxy(t, { redirect_port: redirectPort, threads: 1 });
  t.is(proxy.redirectPort, redirectPort);
  const plain = (name: string, path: string) =>
    runToEnd('curl', [
      '-sS',
      '-o',
      '/dev/null',
      '-w',
      '%{http_code} %{redirect_url}',
      '--resolve',
      `${name}:${redirectPort}:127.0.0.1`,
      `http://${name}:${redirectPort}${path}`,
    ]);
  t.is((await plain('alpha.test', '/a/b?c=d')).stdout, `308 https://alpha.test:${proxy.port}/a/b?c=d`);
  t.is((await plain('elsewhere.example', '/')).stdout, '404 ');
});

test('outpost run -c host.json runs the proxy role beside another role', async (t) => {
  const materialDir = await temporaryDir(t, 'agent-proxy-material-');
  await writeTestMaterial(materialDir, 'alpha.test', '0a');
  const alpha = await startProxyBackend(t, 'alpha');
  const dir = await temporaryDir(t, 'agent-proxy-host-');
  const hostFile = join(dir, 'host.json');
  const proxyRole = {
    server: 'https://certhub.example.test/',
    fetch: false,
    routes: { 'alpha.test': { backend: alpha.address, token } },
    host: '127.0.0.1',
    port: 0,
    material_dir: materialDir,
    threads: 2,
  };
  await writeFile(hostFile, JSON.stringify({ roles: { proxy: proxyRole, monitor: { host: '127.0.0.1', port: 0 } } }), { mode: 0o600 });
  const host = startProcess(t, process.execPath, [projectPath('dist/bin/outpost.js'), 'run', '-c', hostFile]);
  const [, port] = await host.waitFor(/^proxy\s+https:\/\/127\.0\.0\.1:(\d+)\/$/m, 30_000);
  const [, monitorUrl] = await host.waitFor(/^monitor\s+(http:\/\/127\.0\.0\.1:\d+\/)$/m);
  const proxied = await curlResolve('alpha.test', Number(port), '/whoami');
  t.is(proxied.code, 0, proxied.stderr);
  t.like(JSON.parse(proxied.stdout), { name: 'alpha' });
  t.is((await fetch(`${monitorUrl}api/snapshot`)).status, 200);
});

test('the Proxy JSON the panel exports is a valid proxy config as it is; bad options exit 2 naming their path', async (t) => {
  const exported = { server: 'https://certhub.example.test/', routes: { 'app.example.test': { backend: '127.0.0.1:8080', token } } };
  t.true(proxyRoutesSchema.safeParse(exported).success);
  t.like(proxyConfigSchema.parse(exported), { host: '0.0.0.0', port: 443 });

  const dir = await temporaryDir(t, 'agent-proxy-config-');
  const file = join(dir, 'proxy.json');
  await writeFile(file, JSON.stringify({ ...exported, routes: { 'app.example.test': { backend: 'no-port', token } }, port: 70_000 }));
  const result = await runToEnd(process.execPath, [projectPath('dist/bin/certhub-agent.js'), 'proxy', '-c', file]);
  t.is(result.code, 2);
  t.regex(result.stderr, /routes\.app\.example\.test\.backend must be/);
  t.regex(result.stderr, /port must be at most 65535/);
});

test('a route name that is not a host name is refused: exit 2 naming the route', async (t) => {
  const dir = await temporaryDir(t, 'agent-proxy-config-');
  const file = join(dir, 'proxy.json');
  const route = { backend: '127.0.0.1:8080', token };
  await writeFile(
    file,
    JSON.stringify({
      server: 'https://certhub.example.test/',
      routes: { 'app_1.example.test': route, 'App.Example.test': route, localhost: route, 'ok.example.test': route },
    }),
  );
  const result = await runToEnd(process.execPath, [projectPath('dist/bin/certhub-agent.js'), 'proxy', '-c', file]);
  t.is(result.code, 2);
  t.regex(result.stderr, /routes\.app_1\.example\.test is not a host name: it has the label "app_1"/);
  t.regex(result.stderr, /routes\.App\.Example\.test must be written as app\.example\.test/);
  t.regex(result.stderr, /routes\.localhost is not a host name: it must have at least 2 labels/);
  t.notRegex(result.stderr, /ok\.example\.test/);
});

test('the start line says which routes were loaded, where each goes and which has no certificate yet', async (t) => {
  const materialDir = await temporaryDir(t, 'agent-proxy-material-');
  await writeTestMaterial(materialDir, 'alpha.test', '0a');
  const proxy = await startAgentProxy(t, {
    server: 'https://certhub.example.test/',
    fetch: false,
    routes: { 'alpha.test': { backend: '127.0.0.1:8081', token }, 'beta.test': { backend: '127.0.0.1:8082', token } },
    host: '127.0.0.1',
    port: 0,
    material_dir: materialDir,
    threads: 2,
  });
  const [line] = await proxy.process.waitFor(/^.*proxy on https:\/\/127\.0\.0\.1:\d+\/: .*$/m);
  t.regex(
    line,
    /2 routes, 1 with a certificate: alpha\.test -> 127\.0\.0\.1:8081 \(certificate loaded\), beta\.test -> 127\.0\.0\.1:8082 \(no certificate yet: its handshakes are refused until one is in \S+beta\.test\)/,
  );
  t.is(
    proxy.process
      .stderr()
      .split('\n')
      .filter((text) => text.includes('proxy on https://')).length,
    1,
    'one line, not one per front thread',
  );
});
