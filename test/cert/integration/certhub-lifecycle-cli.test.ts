// `certhub renew|rekey|revoke DOMAIN` against a real certhub ordering from Pebble through PowerDNS,
// served over HTTPS with its self-signed certificate (trusted by its pin from the data directory):
// each answers with what certhub did, and the served certificate changes (a new key after rekey and
// revoke). A refused action, a certhub that is not running and a certificate that is not the data
// directory's exit 1 with the reason; a wrong reason exits 2. Without --url, the address comes from
// config.json (a --demo certhub on plain HTTP), and a stale admin key is named.
import { X509Certificate } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import test from 'ava';
import { selfSignedTls } from '../../../actors/cert/self-signed.js';
import { reservePort } from '../../../src/http/port.js';
import { startCertStack, stopCertStack } from '../../helpers/cert-stack.js';
import { certhubBin, certhubDataDir, requestTrusting, startCerthubOffLoopback, testAdminKey } from '../../helpers/certhub.js';
import { powerdnsSection, stackSections } from '../../helpers/certhub-domains.js';
import { eventually } from '../../helpers/fixture-host.js';
import { runToEnd, startProcess } from '../../helpers/process.js';

function certhub(...args: string[]): ReturnType<typeof runToEnd> {
  return runToEnd(process.execPath, [certhubBin, ...args], { NO_COLOR: '1' });
}

test('renew, rekey and revoke reach the running certhub by its pin and give new certificates', async (t) => {
  const stack = await startCertStack();
  try {
    const dataDir = await certhubDataDir(t, { dns: powerdnsSection(stack.powerdns), ...stackSections(stack, [stack.powerdns.nameserver], 30) });
    const server = await startCerthubOffLoopback(t, dataDir, []);
    t.regex(server.url, /^https:/);
    const certPem = await readFile(`${dataDir}/self-signed.crt`, 'utf8');
    const admin = async (path: string, body?: unknown) => {
      const answer = await requestTrusting(`${server.url}${path}`, certPem, 'example.test', {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${testAdminKey}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (answer.status >= 300) throw new Error(`${path}: HTTP ${answer.status} ${answer.body}`);
      return answer.body;
    };
    const name = 'life.example.test';
    await admin('api/admin/domains', { name: 'life', target: '203.0.113.61' });
    t.true(await eventually(async () => (JSON.parse(await admin('api/admin/domains/life')) as { status: string }).status === 'issued', 90_000, 200));
    const served = async () => new X509Certificate(await admin(`api/admin/domains/${name}/cert.crt`));
    const renewedFrom = async (before: X509Certificate) => {
      for (let tries = 0; tries < 900; tries++) {
        const now = await served().catch(() => before);
        if (now.serialNumber !== before.serialNumber) return now;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`no new certificate after ${before.serialNumber}`);
    };
    const keyOf = (certificate: X509Certificate) => certificate.publicKey.export({ type: 'spki', format: 'der' }).toString('hex');
    const url = ['-d', dataDir, '--url', server.url];

    const first = await served();
    const renewed = await certhub('renew', 'life', ...url);
    t.is(renewed.code, 0, renewed.stderr);
    t.regex(renewed.stdout, /^life\.example\.test: renewal started \(status: \w+\)\n$/);
    const second = await renewedFrom(first);

    const rekeyed = await certhub('rekey', name, ...url);
    t.is(rekeyed.code, 0, rekeyed.stderr);
    t.regex(rekeyed.stdout, /^life\.example\.test: renewal with a new key started/);
    const third = await renewedFrom(second);
    t.not(keyOf(third), keyOf(second), 'a new key');

    const revoked = await certhub('revoke', 'life', '--reason', 'superseded', ...url);
    t.is(revoked.code, 0, revoked.stderr);
    t.regex(
      revoked.stdout,
      /^life\.example\.test: the CA at \S+ revoked the certificate \(reason superseded, code 4\); a new certificate with a new key is being ordered/,
    );
    const fourth = await renewedFrom(third);
    t.not(keyOf(fourth), keyOf(third));
    t.regex(server.stdout() + server.stderr(), /revoked the certificate of life\.example\.test \(reason superseded\), as the operator asked/);
    const audit = await readFile(`${dataDir}/audit.jsonl`, 'utf8');
    t.regex(audit, /"action":"revoke"/);

    const unknown = await certhub('renew', 'nowhere', ...url);
    t.is(unknown.code, 1);
    t.regex(unknown.stderr, /^certhub: certhub at https:\/\/127\.0\.0\.1:\d+ refused to renew nowhere: no domain nowhere\.example\.test \(HTTP 404\)\n$/);

    const badReason = await certhub('revoke', 'life', '--reason', 'cACompromise', ...url);
    t.is(badReason.code, 2);
    t.regex(badReason.stderr, /'cACompromise' is invalid\. Allowed choices are unspecified, keyCompromise/);

    // Another data directory's self-signed certificate is not the one this certhub serves: nothing is sent.
    const otherDir = await certhubDataDir(t);
    await selfSignedTls(otherDir, 'example.test');
    const mispinned = await certhub('renew', 'life', '-d', otherDir, '--url', server.url);
    t.is(mispinned.code, 1);
    t.regex(mispinned.stderr, /serves another certificate \(sha256:[0-9a-f]{64}\) than the one certhub serves from this data directory/);

    server.child.kill('SIGKILL');
    await server.exited;
    const stopped = await certhub('renew', 'life', ...url);
    t.is(stopped.code, 1);
    t.regex(stopped.stderr, new RegExp(`^certhub: cannot reach certhub at ${new URL(server.url).origin.replace(/\./g, '\\.')}: .*ECONNREFUSED`));
  } finally {
    await stopCertStack(stack);
  }
});

test('without --url the address comes from config.json; a changed admin key is named', async (t) => {
  const port = await reservePort('127.0.0.1');
  const dataDir = await certhubDataDir(t, { bind: '127.0.0.1', port });
  const server = startProcess(t, process.execPath, [certhubBin, 'run', '-d', dataDir, '--demo']);
  await server.waitFor(new RegExp(`^http://127\\.0\\.0\\.1:${port}/$`, 'm'), 60_000);
  const added = await fetch(`http://127.0.0.1:${port}/api/admin/domains`, {
    method: 'POST',
    headers: { authorization: `Bearer ${testAdminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'demo', target: '203.0.113.62' }),
  });
  t.is(added.status, 201);
  let result = await certhub('renew', 'demo', '-d', dataDir);
  for (let tries = 0; tries < 100 && result.code !== 0 && result.stderr.includes('HTTP 409'); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    result = await certhub('renew', 'demo', '-d', dataDir);
  }
  t.is(result.code, 0, result.stderr);
  t.regex(result.stdout, /^demo\.example\.test: renewal started/);

  const config = JSON.parse(await readFile(`${dataDir}/config.json`, 'utf8')) as Record<string, unknown>;
  await writeFile(`${dataDir}/config.json`, JSON.stringify({ ...config, admin_key: `${testAdminKey}-changed` }), { mode: 0o600 });
  const stale = await certhub('renew', 'demo', '-d', dataDir);
  t.is(stale.code, 1);
  t.regex(stale.stderr, new RegExp(`refused the admin key of ${dataDir.replace(/[.]/g, '\\.')}/config\\.json \\(HTTP 401\\)`));
});

test('bad arguments exit 2', async (t) => {
  for (const args of [['renew'], ['revoke', 'life'], ['rekey', 'life', '--url', 'ftp://x', '-d', await certhubDataDir(t)]]) {
    const result = await certhub(...args);
    t.is(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
  }
});
