// Keys that never leave the host, on the real stack (PowerDNS + Pebble): an own_key domain is issued
// for the CSR certhub-agent fetch --own-key sends, and then neither the data folder nor any answer of
// the API holds a key of the certificate; the agent's key is 0600 and matches it; a CSR for other
// names is refused; a renewal waits for the host's next CSR (acme.reuse_csr off, the default) or
// orders with the last one (acme.reuse_csr on); --rekey makes a new key.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { DomainView } from '../../../actors/cert/domains/protocol.js';
import { createCsrPem } from '../../../src/crypto/csr.js';
import { newPrivateKeyPem } from '../../../src/crypto/private-key.js';
import { stopCertStack, startCertStack, type CertStack } from '../../helpers/cert-stack.js';
import { powerdnsSection, stackSections, waitForDomain } from '../../helpers/certhub-domains.js';
import { certhubDataDir, startCerthub, type RunningCerthub } from '../../helpers/certhub.js';
import { runAgent } from '../../helpers/certhub-agent.js';
import { tempDir } from '../../helpers/qpool.js';
import { materialPaths } from '../../../actors/proxy/client/material-files.js';
import { presentedCertificate, startAgentProxy } from '../../helpers/agent-proxy.js';
import { startProxyBackend } from '../../helpers/proxy-backend.js';

const name = 'app.example.test';

async function startOn(t: ExecutionContext, stack: CertStack, reuseCsr: boolean): Promise<RunningCerthub> {
  const sections = stackSections(stack, [stack.powerdns.nameserver], 30);
  const dataDir = await certhubDataDir(t, { dns: powerdnsSection(stack.powerdns), ...sections, acme: { ...sections.acme, reuse_csr: reuseCsr } });
  return startCerthub(t, dataDir, []);
}

async function addOwnKeyDomain(server: RunningCerthub): Promise<DomainView> {
  const response = await server.admin('api/admin/domains', { method: 'POST', body: { name: 'app', target: '203.0.113.5', names: ['www.app'], own_key: true } });
  if (response.status !== 201) throw new Error(`add: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as DomainView;
}

/** certhub-agent fetch --own-key for the domain into `out`, trusting Pebble's root. */
async function agentFetch(server: RunningCerthub, token: string, out: string, bundle: string, extra: string[] = []) {
  return runAgent(['fetch', '--own-key', '-s', server.url, '-t', token, '-d', name, '-o', out, '--ca-bundle', bundle, ...extra]);
}

/** Every file under `dir`, with its path. */
async function filesUnder(dir: string): Promise<{ path: string; text: string }[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return Promise.all(
    entries
      .filter((entry) => entry.isFile())
      .map(async (entry) => ({ path: join(entry.parentPath, entry.name), text: await readFile(join(entry.parentPath, entry.name), 'utf8') })),
  );
}

const keyBlock = /-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]+?-----END \1PRIVATE KEY-----/g;

test.serial('an own_key domain is issued for the host CSR; certhub holds no key of it; a renewal waits for the next CSR; --rekey', async (t) => {
  const stack = await startCertStack();
  try {
    const server = await startOn(t, stack, false);
    const added = await addOwnKeyDomain(server);
    t.true(added.own_key);
    t.true(added.csr_wanted);
    const bundle = join(await tempDir(t, 'own-key-ca-'), 'pebble-root.pem');
    await writeFile(bundle, await stack.pebble.root());
    const certAnswer = () => fetch(`${server.url}api/cert/app`, { headers: { authorization: `Bearer ${added.token}` } });
    const postCsr = (csr: string) =>
      fetch(`${server.url}api/cert/app/csr`, {
        method: 'POST',
        headers: { authorization: `Bearer ${added.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ csr }),
      });
    t.is((await certAnswer()).status, 409, 'nothing is ordered before the host sends its CSR');
    const wanted = await fetch(`${server.url}api/cert/app/csr`, { headers: { authorization: `Bearer ${added.token}` } });
    t.deepEqual(await wanted.json(), { domain: name, names: [name, 'www.app.example.test'], csr_wanted: true }, 'the CSR to send names the whole set');
    t.is((await waitForDomain(server, 'app', () => true, 1000)).status, 'pending');

    // Refusals: other names, a name too many, garbage.
    const stranger = newPrivateKeyPem({ keyType: 'ecdsa-p256' });
    const wrongNames = await postCsr(await createCsrPem(stranger, ['other.example.test']));
    t.is(wrongNames.status, 400);
    t.regex(
      ((await wrongNames.json()) as { error: string }).error,
      /names must be exactly app\.example\.test, www\.app\.example\.test; missing: app\.example\.test, www\.app\.example\.test; not this domain's: other\.example\.test/,
    );
    const extraName = await postCsr(await createCsrPem(stranger, [name, 'www.app.example.test', 'x.app.example.test']));
    t.is(extraName.status, 400);
    const garbage = await postCsr('-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n');
    t.is(garbage.status, 400);
    t.regex(((await garbage.json()) as { error: string }).error, /cannot be read/);
    t.is((await waitForDomain(server, 'app', () => true, 1000)).csr, null, 'a refused CSR is not kept');

    const out = await tempDir(t, 'own-key-out-');
    const first = await agentFetch(server, added.token, out, bundle);
    t.is(first.code, 0, first.stderr);
    const paths = materialPaths(out, name);
    const keyPem = await readFile(paths.key, 'utf8');
    const certPem = await readFile(paths.cert, 'utf8');
    t.is((await stat(paths.key)).mode & 0o777, 0o600);
    t.true(new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem)), "the agent's key matches the certificate");
    t.is(new X509Certificate(certPem).subjectAltName, `DNS:${name}, DNS:www.app.example.test`, 'one certificate for the whole set');
    await t.throwsAsync(stat(paths.nextKey), { code: 'ENOENT' });
    const issued = await waitForDomain(server, 'app', (domain) => domain.status === 'issued', 5000);
    t.is(issued.csr?.key_type, 'ecdsa-p256');
    t.false(issued.csr_wanted);

    // No key of the certificate anywhere certhub keeps or says anything.
    const leaf = new X509Certificate(certPem);
    for (const file of await filesUnder(server.dataDir)) {
      for (const [block] of file.text.matchAll(keyBlock)) t.false(leaf.checkPrivateKey(createPrivateKey(block)), `${file.path} holds the certificate's key`);
      if (file.path.includes(`${name}.json`) || file.path.endsWith('orders.json')) t.false(file.text.includes('PRIVATE KEY'), file.path);
    }
    const answer = await (await certAnswer()).text();
    t.false(answer.includes('PRIVATE KEY'));
    t.false('key_pem' in (JSON.parse(answer) as object));
    for (const path of ['api/admin/domains', 'api/admin/domains/app', 'api/admin/domains/app/cert.crt']) {
      const text = await (await server.admin(path)).text();
      t.false(text.includes('PRIVATE KEY'), path);
    }
    const keyDownload = await server.admin('api/admin/domains/app/key.key');
    t.is(keyDownload.status, 409);
    t.regex(await keyDownload.text(), /kept on its host/);
    t.is((await server.admin('api/admin/domains/app/rekey', { method: 'POST' })).status, 409, 'certhub cannot re-key a key it does not hold');

    // A renewal without acme.reuse_csr waits for the host's next CSR.
    t.is((await server.admin('api/admin/domains/app/renew', { method: 'POST' })).status, 200);
    const waiting = await waitForDomain(server, 'app', (domain) => domain.csr_wanted, 10_000);
    t.true(waiting.csr_wanted, JSON.stringify(waiting));
    t.is(waiting.issued_at, issued.issued_at, 'nothing is ordered without a new CSR');
    t.true(((await (await certAnswer()).json()) as { csr_wanted?: boolean }).csr_wanted);
    const second = await agentFetch(server, added.token, out, bundle);
    t.is(second.code, 0, second.stderr);
    const renewed = await waitForDomain(server, 'app', (domain) => domain.status === 'issued' && domain.issued_at !== issued.issued_at, 60_000);
    t.not(renewed.issued_at, issued.issued_at, JSON.stringify(renewed));
    const third = await agentFetch(server, added.token, out, bundle);
    t.is(third.code, 0, third.stderr);
    const renewedCert = await readFile(paths.cert, 'utf8');
    t.not(renewedCert, certPem, 'the renewed certificate is written');
    t.is(await readFile(paths.key, 'utf8'), keyPem, 'the key stays: re-keying is the host choice');
    t.true(new X509Certificate(renewedCert).checkPrivateKey(createPrivateKey(keyPem)));

    // --rekey: a new key, its CSR, its certificate.
    const rekeyed = await agentFetch(server, added.token, out, bundle, ['--rekey', '--key-type', 'ecdsa-p384']);
    t.is(rekeyed.code, 0, rekeyed.stderr);
    const newKey = await readFile(paths.key, 'utf8');
    t.not(newKey, keyPem);
    t.is(createPrivateKey(newKey).asymmetricKeyDetails?.namedCurve, 'secp384r1');
    t.true(new X509Certificate(await readFile(paths.cert, 'utf8')).checkPrivateKey(createPrivateKey(newKey)));
    await t.throwsAsync(stat(paths.nextKey), { code: 'ENOENT' });
  } finally {
    await stopCertStack(stack);
  }
});

test.serial('with acme.reuse_csr a renewal orders with the last CSR, the same public key, without the host', async (t) => {
  const stack = await startCertStack();
  try {
    const server = await startOn(t, stack, true);
    const added = await addOwnKeyDomain(server);
    const bundle = join(await tempDir(t, 'own-key-ca-'), 'pebble-root.pem');
    await writeFile(bundle, await stack.pebble.root());
    const out = await tempDir(t, 'own-key-out-');
    const fetched = await agentFetch(server, added.token, out, bundle);
    t.is(fetched.code, 0, fetched.stderr);
    const issued = await waitForDomain(server, 'app', (domain) => domain.status === 'issued', 5000);
    t.is((await server.admin('api/admin/domains/app/renew', { method: 'POST' })).status, 200);
    const renewed = await waitForDomain(server, 'app', (domain) => domain.status === 'issued' && domain.issued_at !== issued.issued_at, 60_000);
    t.not(renewed.issued_at, issued.issued_at, JSON.stringify(renewed));
    t.false(renewed.csr_wanted);
    const served = (await (await fetch(`${server.url}api/cert/app`, { headers: { authorization: `Bearer ${added.token}` } })).json()) as { cert_pem: string };
    const keyPem = await readFile(materialPaths(out, name).key, 'utf8');
    t.true(new X509Certificate(served.cert_pem).checkPrivateKey(createPrivateKey(keyPem)), "the renewed certificate carries the host's key");
  } finally {
    await stopCertStack(stack);
  }
});

test.serial('certhub-agent proxy with own_key serves every name of the set with the key it made and keeps; certhub holds none', async (t) => {
  const stack = await startCertStack();
  try {
    const server = await startOn(t, stack, false);
    const added = await addOwnKeyDomain(server);
    const bundle = join(await tempDir(t, 'own-key-ca-'), 'pebble-root.pem');
    await writeFile(bundle, await stack.pebble.root());
    const materialDir = await tempDir(t, 'own-key-proxy-');
    const backend = await startProxyBackend(t, 'own-key-backend');
    const proxy = await startAgentProxy(t, {
      server: server.url,
      routes: { [name]: { backend: backend.address, token: added.token } },
      host: '127.0.0.1',
      port: 0,
      material_dir: materialDir,
      ca_bundle: bundle,
      own_key: true,
      own_key_type: 'ecdsa-p384',
    });
    await proxy.process.waitFor(/certificate served/, 120_000);
    const paths = materialPaths(materialDir, name);
    const keyPem = await readFile(paths.key, 'utf8');
    t.is((await stat(paths.key)).mode & 0o777, 0o600);
    t.is(createPrivateKey(keyPem).asymmetricKeyDetails?.namedCurve, 'secp384r1', 'the key type asked for');
    const issued = await waitForDomain(server, 'app', (domain) => domain.status === 'issued', 5000);
    t.is(issued.csr?.key_type, 'ecdsa-p384');
    const written = new X509Certificate(await readFile(paths.cert, 'utf8'));
    t.true(written.checkPrivateKey(createPrivateKey(keyPem)), 'the certificate written beside the key is for it');
    for (const sni of [name, 'www.app.example.test'])
      t.is(
        (await presentedCertificate(proxy.port, sni)).serialNumber.toLowerCase(),
        written.serialNumber.toLowerCase(),
        `${sni}: served with that certificate`,
      );
    for (const file of await filesUnder(server.dataDir)) t.false(file.text.includes(keyPem.trim()), `${file.path} holds the proxy's key`);
  } finally {
    await stopCertStack(stack);
  }
});
