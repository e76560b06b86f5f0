// certhub's own HTTPS (config `tls`): from files an operator keeps, re-read when they change, and from
// one of its own domains, served as soon as it is issued; a new certificate is put in place without a
// restart and without closing open connections. Refusals of a bad pair name the option.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { Agent, request } from 'node:https';
import { connect, type PeerCertificate } from 'node:tls';
import test, { type ExecutionContext } from 'ava';
import { certhubBin, certhubDataDir, startCerthub, testAdminKey } from '../../helpers/certhub.js';
import { testChain } from '../../helpers/certificates.js';
import { eventually } from '../../helpers/fixture-host.js';
import { runToEnd } from '../../helpers/process.js';
import { tempDir } from '../../helpers/qpool.js';

const notBefore = new Date(Date.now() - 3_600_000);
const notAfter = new Date(Date.now() + 30 * 86_400_000);

/** The certificate a new TLS handshake gets (not verified: the test reads which one it is). */
function peerCertificate(url: string, servername: string): Promise<PeerCertificate> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), servername, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate());
      socket.end();
    });
    socket.on('error', reject);
  });
}

/** GET over HTTPS, verified against `ca`, on `agent` (keep-alive: the same connection for every call). */
function get(
  url: string,
  ca: string,
  agent: Agent,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const call = request(url, { ca, agent, headers, servername: 'localhost' }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
    });
    call.on('error', reject);
    call.end();
  });
}

/** certhub serving a localhost pair from files `fullchain.pem` and `key.pem` in a folder of the test's. */
async function certhubOnTlsFiles(t: ExecutionContext, prefix: string) {
  const dir = await tempDir(t, prefix);
  const first = await testChain('localhost', { notBefore, notAfter, ips: ['127.0.0.1'] });
  const certFile = join(dir, 'fullchain.pem');
  const keyFile = join(dir, 'key.pem');
  await writeFile(certFile, first.certPem);
  await writeFile(keyFile, first.keyPem, { mode: 0o600 });
  const server = await startCerthub(t, await certhubDataDir(t, { tls: { cert_file: certFile, key_file: keyFile } }));
  return { dir, first, certFile, keyFile, server };
}

test('tls from files: HTTPS with Secure cookies; a renewed pair is served to new connections while an open one goes on', async (t) => {
  const { first, certFile, keyFile, server } = await certhubOnTlsFiles(t, 'certhub-tls-files-');
  t.regex(server.url, /^https:\/\/127\.0\.0\.1:\d+\/$/);
  t.notRegex(server.stderr(), /serving plain HTTP/);

  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  const version = await get(`${server.url}api/version`, first.caPem, agent);
  t.is(version.status, 200);
  t.is((JSON.parse(version.body) as { product: string }).product, 'certhub');
  const login = await new Promise<string[]>((resolve, reject) => {
    const call = request(
      `${server.url}api/admin/login`,
      { method: 'POST', ca: first.caPem, servername: 'localhost', headers: { 'content-type': 'application/json', origin: server.url.replace(/\/$/, '') } },
      (response) => {
        response.resume();
        resolve(response.headers['set-cookie'] ?? []);
      },
    );
    call.on('error', reject);
    call.end(JSON.stringify({ key: testAdminKey }));
  });
  t.regex(login.join('\n'), /; Secure/);

  const firstPrint = (await peerCertificate(server.url, 'localhost')).fingerprint256;
  const second = await testChain('localhost', { notBefore, notAfter, ips: ['127.0.0.1'] });
  await writeFile(keyFile, second.keyPem, { mode: 0o600 });
  await writeFile(certFile, second.certPem);
  let print = firstPrint;
  t.true(
    await eventually(async () => (print = (await peerCertificate(server.url, 'localhost')).fingerprint256) !== firstPrint, 30_000, 200),
    'new handshakes get the new certificate',
  );
  t.is(print, new X509Certificate(second.certPem).fingerprint256);
  // The keep-alive connection opened under the first certificate still answers.
  t.is((await get(`${server.url}api/version`, first.caPem, agent)).status, 200);
  t.is((await get(`${server.url}api/version`, second.caPem, new Agent())).status, 200, 'a new connection verifies under the new chain');
  await server.waitFor(/https: now serving the certificate from .*fullchain\.pem/);
});

test('tls.domain: a temporary certificate until the domain is issued, then the issued one, without a restart', async (t) => {
  const dataDir = await certhubDataDir(t, { tls: { domain: 'hub' } });
  const server = await startCerthub(t, dataDir);
  t.regex(server.url, /^https:/);
  await server.waitFor(/serving a temporary self-signed certificate until hub\.example\.test is issued/);
  const before = await peerCertificate(server.url, 'hub.example.test');

  const added = await new Promise<number>((resolve, reject) => {
    const call = request(
      `${server.url}api/admin/domains`,
      { method: 'POST', rejectUnauthorized: false, headers: { authorization: `Bearer ${testAdminKey}`, 'content-type': 'application/json' } },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    call.on('error', reject);
    call.end(JSON.stringify({ name: 'hub', target: '127.0.0.1' }));
  });
  t.is(added, 201);
  let after = before;
  t.true(await eventually(async () => (after = await peerCertificate(server.url, 'hub.example.test')).fingerprint256 !== before.fingerprint256, 30_000, 100));
  t.regex(after.subjectaltname ?? '', /DNS:hub\.example\.test/);
});

test('a tls pair that does not belong together, or a file that is missing, is refused naming the option (exit 2)', async (t) => {
  const dir = await tempDir(t, 'certhub-tls-bad-');
  const [one, other] = await Promise.all([testChain('localhost', { notBefore, notAfter }), testChain('localhost', { notBefore, notAfter })]);
  await writeFile(join(dir, 'cert.pem'), one.certPem);
  await writeFile(join(dir, 'key.pem'), other.keyPem, { mode: 0o600 });
  const mismatched = await runToEnd(process.execPath, [
    certhubBin,
    'run',
    '-d',
    await certhubDataDir(t, { tls: { cert_file: join(dir, 'cert.pem'), key_file: join(dir, 'key.pem') } }),
    '--demo',
    '-H',
    '127.0.0.1',
    '-p',
    '0',
  ]);
  t.is(mismatched.code, 2);
  t.regex(mismatched.stderr, /tls: the private key is not the key of the certificate/);
  const missing = await runToEnd(process.execPath, [
    certhubBin,
    'run',
    '-d',
    await certhubDataDir(t, { tls: { cert_file: join(dir, 'nothing.pem'), key_file: join(dir, 'key.pem') } }),
    '--demo',
    '-H',
    '127.0.0.1',
    '-p',
    '0',
  ]);
  t.is(missing.code, 2);
  t.regex(missing.stderr, /tls\.cert_file: .*nothing\.pem cannot be read/);
});

test('tls from files: a pair caught half-written is refused, and the complete pair with the same certificate is then served', async (t) => {
  const { certFile, keyFile, server } = await certhubOnTlsFiles(t, 'certhub-tls-half-');
  const second = await testChain('localhost', { notBefore, notAfter, ips: ['127.0.0.1'] });
  // The tool writes the certificate first: certhub reads it beside the old key and refuses the pair.
  await writeFile(certFile, second.certPem);
  t.truthy(await server.waitFor(/https: the certificate from .*fullchain\.pem was not put in place/, 30_000), 'the half-written pair is refused');
  await writeFile(keyFile, second.keyPem, { mode: 0o600 });
  const secondPrint = new X509Certificate(second.certPem).fingerprint256;
  t.true(
    await eventually(async () => (await peerCertificate(server.url, 'localhost')).fingerprint256 === secondPrint, 30_000, 200),
    'the complete pair is served',
  );
});

/** An HTTPS call that does not verify certhub's certificate (the test reads answers, not the chain). */
function call(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: options.method ?? 'GET', rejectUnauthorized: false, headers: options.headers }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

test('tls.domain: its token is never shown and its certificate and key are refused to a token fetch', async (t) => {
  const dataDir = await certhubDataDir(t, { tls: { domain: 'hub' } });
  const server = await startCerthub(t, dataDir);
  const admin = { authorization: `Bearer ${testAdminKey}`, 'content-type': 'application/json' };
  const added = await call(`${server.url}api/admin/domains`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'hub', target: '127.0.0.1' }) });
  t.is(added.status, 201);
  t.is((JSON.parse(added.body) as { token: string }).token, '', 'the add answer withholds the token');
  const other = await call(`${server.url}api/admin/domains`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'app', target: '127.0.0.1' }) });
  t.regex((JSON.parse(other.body) as { token: string }).token, /^chd_/, 'any other domain shows its token');
  const shown = async () => {
    const list = JSON.parse((await call(`${server.url}api/admin/domains`, { headers: admin })).body) as {
      domains: { name: string; token: string; status: string }[];
    };
    return list.domains.find((domain) => domain.name === 'hub.example.test');
  };
  t.true(await eventually(async () => (await shown())?.status === 'issued', 30_000, 100), 'hub is issued');
  t.is((await shown())?.token, '', 'the list withholds it');
  const tokenIn = (answer: { body: string }) => (JSON.parse(answer.body) as { token: string }).token;
  t.is(tokenIn(await call(`${server.url}api/admin/domains/hub`, { headers: admin })), '', 'the domain view withholds it');
  t.is(tokenIn(await call(`${server.url}api/admin/domains/hub/rotate`, { method: 'POST', headers: admin })), '', 'a rotation withholds the new one');
  // The token as stored (e.g. from before the upgrade that withholds it) opens nothing.
  const stored = JSON.parse(await readFile(join(dataDir, 'domains', 'hub.example.test.json'), 'utf8')) as { record: { token: string } };
  const fetched = await call(`${server.url}api/cert/hub`, { headers: { authorization: `Bearer ${stored.record.token}` } });
  t.is(fetched.status, 403);
  t.regex((JSON.parse(fetched.body) as { error: string }).error, /certhub's own tls\.domain/);
  t.notRegex(fetched.body, /PRIVATE KEY/);
});
