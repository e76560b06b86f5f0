// certhub secure by default (issue 23): what it refuses to start with, and what it serves off loopback.
import { createHash, X509Certificate } from 'node:crypto';
import { chmod, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { connect, type PeerCertificate } from 'node:tls';
import test from 'ava';
import { certhubBin, certhubDataDir, requestTrusting, startCerthub, startCerthubOffLoopback, testAdminKey } from '../helpers/certhub.js';
import { eventually } from '../helpers/fixture-host.js';
import { runToEnd } from '../helpers/process.js';
import { modeOf } from '../helpers/qpool.js';

test('a config.json readable by group or others is refused (exit 2), naming the file and its mode', async (t) => {
  for (const mode of [0o640, 0o604]) {
    const dataDir = await certhubDataDir(t);
    const configPath = join(dataDir, 'config.json');
    await chmod(configPath, mode);
    const run = await runToEnd(process.execPath, [certhubBin, 'run', '-d', dataDir, '--demo', '-H', '127.0.0.1', '-p', '0']);
    t.is(run.code, 2);
    t.true(run.stderr.includes(`${configPath} is readable by group or others (mode 0${mode.toString(8)})`), run.stderr);
    t.notRegex(run.stdout, /admin key/);
  }
});

test('off loopback without tls: HTTPS with a self-signed certificate kept in the data directory (key 0600), its fingerprint printed beside the admin key and the same after a restart', async (t) => {
  const dataDir = await certhubDataDir(t);
  const first = await startCerthubOffLoopback(t, dataDir);
  t.regex(first.url, /^https:\/\/127\.0\.0\.1:\d+\/$/);
  t.regex(first.pin ?? '', /^sha256:[0-9a-f]{64}$/, first.stdout());
  t.notRegex(first.stderr(), /plain HTTP/);
  const certPem = await readFile(join(dataDir, 'self-signed.crt'), 'utf8');
  t.is(await modeOf(join(dataDir, 'self-signed.key')), 0o600);
  t.is(first.pin, `sha256:${createHash('sha256').update(new X509Certificate(certPem).raw).digest('hex')}`, 'the printed pin is the DER certificate\'s SHA-256');
  t.is((await servedCertificate(first.url)).fingerprint256, new X509Certificate(certPem).fingerprint256, 'the kept certificate is the one served');

  // Verified against that certificate alone: what an agent pinning it does.
  const info = await requestTrusting(`${first.url}api/admin/server`, certPem, 'example.test', { headers: { authorization: `Bearer ${testAdminKey}` } });
  t.is(info.status, 200);
  t.deepEqual(JSON.parse(info.body), { pin: first.pin, insecure_http: false });
  const login = await requestTrusting(`${first.url}api/admin/login`, certPem, 'example.test', { method: 'POST', headers: { 'content-type': 'application/json', origin: first.url.replace(/\/$/, '') }, body: JSON.stringify({ key: testAdminKey }) });
  t.is(login.status, 204);
  t.regex(String(login.headers['set-cookie']), /; Secure/);
  await t.throwsAsync(fetch(`${first.url.replace('https:', 'http:')}api/version`), undefined, 'no plain HTTP on the port');

  first.child.kill('SIGTERM');
  await first.exited;
  const second = await startCerthubOffLoopback(t, dataDir);
  t.is(second.pin, first.pin, 'a restart serves the same certificate');
});

test('insecure_http: plain HTTP off loopback, said in the start line and by /api/admin/server', async (t) => {
  const dataDir = await certhubDataDir(t, { insecure_http: true });
  const server = await startCerthubOffLoopback(t, dataDir);
  t.regex(server.url, /^http:\/\//);
  t.is(server.pin, undefined);
  t.regex(server.stdout(), /^WARNING: insecure_http: plain HTTP on 0\.0\.0\.0: the admin key, the tokens and the private keys cross the network in clear$/m);
  t.deepEqual(await (await server.admin('api/admin/server')).json(), { pin: null, insecure_http: true });
  await t.throwsAsync(stat(join(dataDir, 'self-signed.key')), { code: 'ENOENT' });
});

test('on loopback without tls: plain HTTP, no certificate made, nothing to pin', async (t) => {
  const dataDir = await certhubDataDir(t);
  const server = await startCerthub(t, dataDir);
  t.regex(server.url, /^http:\/\//);
  t.deepEqual(await (await server.admin('api/admin/server')).json(), { pin: null, insecure_http: false });
  await t.throwsAsync(stat(join(dataDir, 'self-signed.crt')), { code: 'ENOENT' });
});

/** The certificate a TLS handshake with `url` gets (not verified: the test compares it). */
function servedCertificate(url: string): Promise<PeerCertificate> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), servername: 'example.test', rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate());
      socket.end();
    });
    socket.on('error', reject);
  });
}

test('failure limits: past 10 wrong keys and 20 wrong tokens the right key and token still pass; limits are per client behind a trusted proxy; failures are logged without the credential', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t, { trusted_proxies: ['127.0.0.1'] }));
  const added = (await (await server.admin('api/admin/domains', { method: 'POST', body: { name: 'web', target: '203.0.113.1' } })).json()) as { token: string };
  const from = (client: string) => ({ 'x-forwarded-for': `198.51.100.200, ${client}` });
  const login = (key: string, client: string) => fetch(`${server.url}api/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json', ...from(client) }, body: JSON.stringify({ key }) }).then((response) => response.status);
  const fetchCert = (token: string, client: string) => fetch(`${server.url}api/cert/web.example.test`, { headers: { authorization: `Bearer ${token}`, ...from(client) } }).then((response) => response.status);
  t.true(await eventually(async () => (await fetchCert(added.token, '203.0.113.50')) === 200, 30_000), 'the demo certificate is issued');

  const wrongKey = 'cha_wrong-admin-key-that-must-never-be-logged';
  const logins = [];
  for (let index = 0; index < 11; index++) logins.push(await login(wrongKey, '203.0.113.9'));
  t.deepEqual(logins, [...Array<number>(10).fill(401), 429]);
  t.is(await login(testAdminKey, '203.0.113.9'), 204, 'the right key passes whatever failed before');
  t.is(await login(wrongKey, '203.0.113.9'), 429, 'and the allowance is not given back by it');
  t.is(await login(wrongKey, '203.0.113.10'), 401, 'another client behind the same proxy has its own allowance');

  const wrongToken = 'chd_wrong-token-that-must-never-be-logged';
  const fetches = [];
  for (let index = 0; index < 21; index++) fetches.push(await fetchCert(wrongToken, '203.0.113.9'));
  t.deepEqual(fetches, [...Array<number>(20).fill(401), 429]);
  t.is(await fetchCert(added.token, '203.0.113.9'), 200, 'the right token passes whatever failed before');

  // Front threads log through the supervisor's thread, so the last line can reach stdout after the answer did.
  const fetchLogged = /certhub: failed certificate fetch client=203\.0\.113\.9 domain=web\.example\.test\n/;
  t.true(await eventually(() => Promise.resolve(fetchLogged.test(server.stdout() + server.stderr()))), 'the failed fetch is logged');
  const log = server.stdout() + server.stderr();
  t.regex(log, /certhub: failed admin login client=203\.0\.113\.9\n/);
  t.false(log.includes(wrongKey) || log.includes(wrongToken) || log.includes(added.token), 'no credential in the log');
});

test('sessions over HTTPS: a __Host- cookie (Secure, Path=/, no Domain); a logout ends every session; on loopback HTTP the plain name', async (t) => {
  const dataDir = await certhubDataDir(t);
  const server = await startCerthubOffLoopback(t, dataDir);
  const certPem = await readFile(join(dataDir, 'self-signed.crt'), 'utf8');
  const origin = server.url.replace(/\/$/, '');
  const call = (path: string, init: { method?: string; cookie?: string; body?: string } = {}) =>
    requestTrusting(`${server.url}${path}`, certPem, 'example.test', { method: init.method ?? 'GET', headers: { origin, 'content-type': 'application/json', ...(init.cookie === undefined ? {} : { cookie: init.cookie }) }, ...(init.body === undefined ? {} : { body: init.body }) });
  const logIn = async () => {
    const answer = await call('api/admin/login', { method: 'POST', body: JSON.stringify({ key: testAdminKey }) });
    t.is(answer.status, 204);
    return String(answer.headers['set-cookie']);
  };
  const first = await logIn();
  t.regex(first, /^__Host-certhub_session=[\w-]+; Max-Age=43200; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
  const cookies = [first, await logIn()].map((setCookie) => setCookie.split(';')[0] ?? '');
  const active = async (cookie: string) => (JSON.parse((await call('api/admin/session', { cookie })).body) as { active: boolean }).active;
  t.deepEqual([await active(cookies[0] ?? ''), await active(cookies[1] ?? '')], [true, true]);
  t.is((await call('api/admin/logout', { method: 'POST', cookie: cookies[0] ?? '' })).status, 204);
  t.deepEqual([await active(cookies[0] ?? ''), await active(cookies[1] ?? '')], [false, false], 'the other session ended too');

  const plain = await startCerthub(t, await certhubDataDir(t));
  const login = await fetch(`${plain.url}api/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: testAdminKey }) });
  t.regex(login.headers.get('set-cookie') ?? '', /^certhub_session=/, 'browsers refuse a __Host- cookie without Secure, which plain HTTP cannot have');
});
