// The TLS policy of every TLS server of the project, as testssl.sh (Debian's /usr/bin/testssl) sees
// it: certhub's own HTTPS and the proxy's listener. Only what is asserted is checked (protocols,
// server preference, forward secrecy; --fast), and the findings are read from its JSON file.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { bodyText, proxiedRequest, temporaryDir } from '../helpers/agent-proxy.js';
import { startTwoRouteProxy } from '../helpers/two-route-proxy.js';
import { certhubDataDir, startCerthub } from '../helpers/certhub.js';
import { testChain } from '../helpers/certificates.js';

interface Finding {
  id: string;
  severity: string;
  finding: string;
}

/** Runs testssl against 127.0.0.1:port naming `name`; resolves with its findings. */
async function testssl(t: ExecutionContext, name: string, port: number): Promise<Finding[]> {
  const dir = await temporaryDir(t, 'testssl-');
  const json = join(dir, 'findings.json');
  await new Promise<void>((resolve, reject) => {
    // At the usual priority, not `nice 19`: testssl's bash forks a few times between opening a
    // connection and sending its ClientHello (0.1 s of wall unloaded), and the servers checked drop a
    // connection that sends nothing for 10 s (uWS's idle timeout), as a server should. At nice 19
    // on a loaded machine that gap grows past 10 s: the dropped 129-suite hello reads as "128 cipher
    // limit bug", and beside 7 busy loops the file does not end in 15 minutes.
    execFile(
      '/usr/bin/testssl',
      [
        '--quiet',
        '--color',
        '0',
        '--warnings',
        'off',
        '--fast',
        '--protocols',
        '--server-preference',
        '--fs',
        '--jsonfile',
        json,
        '--ip',
        '127.0.0.1',
        `${name}:${port}`,
      ],
      { maxBuffer: 16 << 20 },
      // testssl's exit code counts findings of any kind: the JSON file is what is judged. An error
      // without a numeric exit code means it could not be started.
      (error) => {
        if (error !== null && typeof error.code !== 'number') reject(new Error(`testssl did not run: ${error.message}`));
        else resolve();
      },
    );
  });
  return JSON.parse(await readFile(json, 'utf8')) as Finding[];
}

const severe = new Set(['MEDIUM', 'HIGH', 'CRITICAL']);
/** Mozilla "intermediate" TLS 1.2 suites: ECDHE and AEAD only, so no CBC (LUCKY13) and forward secrecy on each. */
const intermediateTls12 = /^ECDHE-(ECDSA|RSA)-(AES(128|256)-GCM-SHA(256|384)|CHACHA20-POLY1305)$/;

function assertPolicy(t: ExecutionContext, findings: Finding[]): void {
  const byId = new Map(findings.map((finding) => [finding.id, finding]));
  // "No engine or GOST support" is about the local openssl testssl drives, not the server.
  t.deepEqual(
    findings.filter((finding) => severe.has(finding.severity) || (finding.severity === 'WARN' && finding.id !== 'engine_problem')),
    [],
  );
  for (const old of ['SSLv2', 'SSLv3', 'TLS1', 'TLS1_1']) t.regex(byId.get(old)?.finding ?? '', /^not offered/, old);
  t.regex(byId.get('TLS1_2')?.finding ?? '', /^offered/);
  t.regex(byId.get('TLS1_3')?.finding ?? '', /^offered/);
  t.regex(byId.get('cipher_order')?.finding ?? '', /^server/, 'the server chooses the TLS 1.2 suite');
  t.is(byId.get('PFS')?.severity, 'OK');
  const tls12 = (byId.get('cipherorder_TLSv1_2')?.finding ?? '').split(/\s+/).filter((suite) => suite !== '');
  t.true(tls12.length > 0);
  for (const suite of tls12) t.regex(suite, intermediateTls12);
}

test("certhub's HTTPS: TLS 1.2 and 1.3 only, the server's choice, forward secrecy and no CBC; no finding MEDIUM or above", async (t) => {
  t.timeout(15 * 60_000, 'testssl on a loaded machine');
  const dir = await temporaryDir(t, 'tls-policy-certhub-');
  const chain = await testChain('localhost', {
    notBefore: new Date(Date.now() - 3_600_000),
    notAfter: new Date(Date.now() + 30 * 86_400_000),
    ips: ['127.0.0.1'],
  });
  await writeFile(join(dir, 'fullchain.pem'), chain.certPem);
  await writeFile(join(dir, 'key.pem'), chain.keyPem, { mode: 0o600 });
  const certhub = await startCerthub(t, await certhubDataDir(t, { tls: { cert_file: join(dir, 'fullchain.pem'), key_file: join(dir, 'key.pem') } }));
  const findings = await testssl(t, 'localhost', Number(new URL(certhub.url).port));
  assertPolicy(t, findings);
});

test("the proxy's listener: the same policy, and a route with hsts sends Strict-Transport-Security", async (t) => {
  t.timeout(15 * 60_000, 'testssl on a loaded machine');
  const { proxy } = await startTwoRouteProxy(t, { alphaRoute: { hsts: { include_subdomains: true } } });
  const withHsts = await proxiedRequest(proxy.port, 'alpha.test', { path: '/whoami' });
  await bodyText(withHsts);
  t.is(withHsts.headers['strict-transport-security'], 'max-age=63072000; includeSubDomains');
  const without = await proxiedRequest(proxy.port, 'beta.test', { path: '/whoami' });
  await bodyText(without);
  t.is(without.headers['strict-transport-security'], undefined);

  assertPolicy(t, await testssl(t, 'alpha.test', proxy.port));
});
