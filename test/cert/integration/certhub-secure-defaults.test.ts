// certhub secure by default: what it refuses to start with, and what it serves off loopback.
import { createHash, X509Certificate } from 'node:crypto';
import { chmod, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { connect, type PeerCertificate } from 'node:tls';
import test from 'ava';
import { certhubBin, certhubDataDir, requestTrusting, startCerthub, startCerthubOffLoopback, testAdminKey } from '../../helpers/certhub.js';
import { eventually } from '../../helpers/fixture-host.js';
import { runToEnd } from '../../helpers/process.js';
import { modeOf } from '../../helpers/qpool.js';

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

test('an admin key or metrics token below 128 bits is refused at start (exit 2), naming the option; nothing is printed', async (t) => {
  for (const [option, weak] of [
    ['admin_key', 'correct-horse-battery'],
    ['metrics_token', 'a1B2c3D4e5F6g7H8'],
  ] as const) {
    const dataDir = await certhubDataDir(t, { [option]: weak });
    const run = await runToEnd(process.execPath, [certhubBin, 'run', '-d', dataDir, '--demo', '-H', '127.0.0.1', '-p', '0']);
    t.is(run.code, 2, run.stderr);
    t.regex(run.stderr, new RegExp(`${option} must carry at least 128 bits, and this one carries about \\d+ `));
    t.notRegex(run.stdout, /admin key/);
  }
});

test('off loopback without tls: HTTPS with a self-signed certificate kept in the data directory (key 0600), its fingerprint printed beside the admin key with a note that http:// gets nothing, and the same after a restart', async (t) => {
  const dataDir = await certhubDataDir(t);
  const first = await startCerthubOffLoopback(t, dataDir);
  t.regex(first.url, /^https:\/\/127\.0\.0\.1:\d+\/$/);
  t.regex(first.pin ?? '', /^sha256:[0-9a-f]{64}$/, first.stdout());
  t.notRegex(first.stderr(), /plain HTTP/);
  const certPem = await readFile(join(dataDir, 'self-signed.crt'), 'utf8');
  t.is(await modeOf(join(dataDir, 'self-signed.key')), 0o600);
  t.is(first.pin, `sha256:${createHash('sha256').update(new X509Certificate(certPem).raw).digest('hex')}`, "the printed pin is the DER certificate's SHA-256");
  t.is((await servedCertificate(first.url)).fingerprint256, new X509Certificate(certPem).fingerprint256, 'the kept certificate is the one served');

  // Verified against that certificate alone: what an agent pinning it does.
  const info = await requestTrusting(`${first.url}api/admin/server`, certPem, 'example.test', { headers: { authorization: `Bearer ${testAdminKey}` } });
  t.is(info.status, 200);
  t.deepEqual(JSON.parse(info.body), { pin: first.pin, insecure_http: false });
  const login = await requestTrusting(`${first.url}api/admin/login`, certPem, 'example.test', {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: first.url.replace(/\/$/, '') },
    body: JSON.stringify({ key: testAdminKey }),
  });
  t.is(login.status, 204);
  t.regex(String(login.headers['set-cookie']), /; Secure/);
  await t.throwsAsync(fetch(`${first.url.replace('https:', 'http:')}api/version`), undefined, 'no plain HTTP on the port');
  t.regex(first.stdout(), /^HTTPS only: a plain http:\/\/ request to this port gets an empty reply$/m, 'the start line says why http:// gets nothing');

  first.child.kill('SIGTERM');
  await first.exited;
  const second = await startCerthubOffLoopback(t, dataDir);
  t.is(second.pin, first.pin, 'a restart serves the same certificate');
});

test('insecure_http: plain HTTP off loopback, said in the start line and by /api/admin/server', async (t) => {
  const dataDir = await certhubDataDir(t, { insecure_http: true });
  const server = await startCerthubOffLoopback(t, dataDir);
  t.regex(server.url, /^http:\/\//);
  t.notRegex(server.stdout(), /HTTPS only/);
  t.is(server.pin, undefined);
  t.regex(server.stdout(), /^WARNING: insecure_http: plain HTTP on 0\.0\.0\.0: the admin key, the tokens and the private keys cross the network in clear$/m);
  t.deepEqual(await (await server.admin('api/admin/server')).json(), { pin: null, insecure_http: true });
  await t.throwsAsync(stat(join(dataDir, 'self-signed.key')), { code: 'ENOENT' });
});

test('on loopback without tls: plain HTTP, no certificate made, nothing to pin', async (t) => {
  const dataDir = await certhubDataDir(t);
  const server = await startCerthub(t, dataDir);
  t.regex(server.url, /^http:\/\//);
  t.notRegex(server.stdout(), /HTTPS only/);
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

test('failure limits: out of its allowance a client is refused without its key or token being checked, unless it succeeded within the window; per client behind a trusted proxy; logged once per spell, never the credential', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t, { trusted_proxies: ['127.0.0.1'] }));
  const added = (await (await server.admin('api/admin/domains', { method: 'POST', body: { name: 'web', target: '203.0.113.1' } })).json()) as { token: string };
  const from = (client: string) => ({ 'x-forwarded-for': `198.51.100.200, ${client}` });
  const login = (key: string, client: string) =>
    fetch(`${server.url}api/admin/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...from(client) },
      body: JSON.stringify({ key }),
    }).then((response) => response.status);
  const fetchCert = (token: string, client: string, name = 'web.example.test') =>
    fetch(`${server.url}api/cert/${name}`, { headers: { authorization: `Bearer ${token}`, ...from(client) } }).then((response) => response.status);
  const times = async (count: number, call: () => Promise<number>) => {
    const statuses = [];
    for (let index = 0; index < count; index++) statuses.push(await call());
    return statuses;
  };
  t.true(await eventually(async () => (await fetchCert(added.token, '203.0.113.50')) === 200, 30_000), 'the demo certificate is issued');

  const wrongKey = 'cha_wrong-admin-key-that-must-never-be-logged';
  t.deepEqual(await times(11, () => login(wrongKey, '203.0.113.9')), [...Array<number>(10).fill(401), 429]);
  t.is(await login(testAdminKey, '203.0.113.9'), 429, 'out of allowance, even the right key is not checked');
  t.is(await login(wrongKey, '203.0.113.10'), 401, 'another client behind the same proxy has its own allowance');
  t.is(await login(testAdminKey, '203.0.113.11'), 204);
  t.deepEqual(await times(11, () => login(wrongKey, '203.0.113.11')), [...Array<number>(10).fill(401), 429]);
  t.is(
    await login(testAdminKey, '203.0.113.11'),
    204,
    'a client that logged in within the window still has its key checked (one NAT for the operator and a guesser)',
  );

  const wrongToken = 'chd_wrong-token-that-must-never-be-logged';
  t.deepEqual(await times(21, () => fetchCert(wrongToken, '203.0.113.9')), [...Array<number>(20).fill(401), 429]);
  t.is(await fetchCert(added.token, '203.0.113.9'), 429, 'out of allowance, even the right token is not checked');
  t.is(await fetchCert(added.token, '203.0.113.12'), 200);
  t.deepEqual(await times(21, () => fetchCert(wrongToken, '203.0.113.12')), [...Array<number>(20).fill(401), 429]);
  t.is(await fetchCert(added.token, '203.0.113.12'), 200, 'an agent that fetched within the window still has its token checked');
  t.is(await fetchCert(wrongToken, '203.0.113.13', 'a'.repeat(300)), 401);

  // Front threads log through the supervisor's thread, so a line can reach stdout after the answer did.
  await server.waitFor(/certhub: failed certificate fetch client=203\.0\.113\.13 domain=a+\n/);
  const log = server.stdout() + server.stderr();
  t.regex(log, /certhub: failed admin login client=203\.0\.113\.9\n/);
  t.regex(log, /certhub: failed certificate fetch client=203\.0\.113\.9 domain=web\.example\.test\n/);
  t.regex(log, new RegExp(`certhub: failed certificate fetch client=203\\.0\\.113\\.13 domain=${'a'.repeat(253)}\n`), 'at most 253 characters of the name');
  const lines = (pattern: RegExp) => log.split('\n').filter((line) => pattern.test(line)).length;
  t.is(lines(/certhub: failed admin login client=203\.0\.113\.9$/), 10, 'a line for each checked key, none for the refused ones');
  t.is(
    lines(/certhub: client out of its allowance of failed admin logins client=203\.0\.113\.9 retry_in_s=\d+$/),
    1,
    'one summary line for the client, however often it was refused',
  );
  t.is(lines(/certhub: client out of its allowance of failed certificate fetches client=203\.0\.113\.9 retry_in_s=\d+$/), 1);
  t.is(lines(/certhub: client out of its allowance of failed certificate fetches client=203\.0\.113\.12 retry_in_s=\d+$/), 1);
  t.false(log.includes(wrongKey) || log.includes(wrongToken) || log.includes(added.token) || log.includes(testAdminKey), 'no credential in the log');
});

test('sessions over HTTPS: a __Host- cookie (Secure, Path=/, no Domain); a logout ends every session; on loopback HTTP the plain name', async (t) => {
  const dataDir = await certhubDataDir(t);
  const server = await startCerthubOffLoopback(t, dataDir);
  const certPem = await readFile(join(dataDir, 'self-signed.crt'), 'utf8');
  const origin = server.url.replace(/\/$/, '');
  const call = (path: string, init: { method?: string; cookie?: string; body?: string } = {}) =>
    requestTrusting(`${server.url}${path}`, certPem, 'example.test', {
      method: init.method ?? 'GET',
      headers: { origin, 'content-type': 'application/json', ...(init.cookie === undefined ? {} : { cookie: init.cookie }) },
      ...(init.body === undefined ? {} : { body: init.body }),
    });
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
  const login = await fetch(`${plain.url}api/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key: testAdminKey }),
  });
  t.regex(login.headers.get('set-cookie') ?? '', /^certhub_session=/, 'browsers refuse a __Host- cookie without Secure, which plain HTTP cannot have');
});
