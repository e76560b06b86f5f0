// certhub secure by default (issue 23): what it refuses to start with, and what it serves off loopback.
import { createHash, X509Certificate } from 'node:crypto';
import { chmod, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { connect, type PeerCertificate } from 'node:tls';
import test from 'ava';
import { certhubBin, certhubDataDir, requestTrusting, startCerthub, startCerthubOffLoopback, testAdminKey } from '../helpers/certhub.js';
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
