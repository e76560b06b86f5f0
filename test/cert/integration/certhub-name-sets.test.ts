// Name sets on Pebble + PowerDNS: one certificate for `app`, `www.app` and `*.app` (the wildcard and
// its parent proved with two TXT values on one name), served by certhub-agent proxy to every name of
// the set by SNI as nginx matches it; a nested name and the apex issued in another domain; the address
// records of every name but the wildcard; a name of another domain refused with 409 naming it; a
// changed set ordered again at once.
import { X509Certificate } from 'node:crypto';
import { get } from 'node:http';
import test, { type ExecutionContext } from 'ava';
import { startCertStack, stopCertStack, type CertStack } from '../../helpers/cert-stack.js';
import { certhubDataDir, startCerthub, type RunningCerthub } from '../../helpers/certhub.js';
import { fetchCertificate, powerdnsSection, recordsOf, settled, stackSections, waitForDomain, type DomainView } from '../../helpers/certhub-domains.js';
import { presentedCertificate, proxiedRequest, startAgentProxy, temporaryDir } from '../../helpers/agent-proxy.js';
import { startProxyBackend } from '../../helpers/proxy-backend.js';
import { eventually } from '../../helpers/fixture-host.js';

const issueDeadlineMs = 120_000;

let stack: CertStack | undefined;
test.before(async () => {
  stack = await startCertStack();
});
test.after.always(async () => {
  if (stack !== undefined) await stopCertStack(stack);
});

async function certhubOnStack(t: ExecutionContext): Promise<{ server: RunningCerthub; stack: CertStack }> {
  if (stack === undefined) throw new Error('the stack did not start');
  const dataDir = await certhubDataDir(t, { dns: powerdnsSection(stack.powerdns), ...stackSections(stack), allow_apex: true });
  return { server: await startCerthub(t, dataDir, []), stack };
}

async function addWithNames(server: RunningCerthub, body: object): Promise<Response> {
  return server.admin('api/admin/domains', { method: 'POST', body });
}

async function issuedWithNames(server: RunningCerthub, name: string, names: string[]): Promise<DomainView> {
  const response = await addWithNames(server, { name, target: '203.0.113.20', names });
  if (response.status !== 201) throw new Error(`adding ${name}: HTTP ${response.status} ${await response.text()}`);
  const domain = await waitForDomain(server, name, settled, issueDeadlineMs);
  if (domain.status !== 'issued') throw new Error(`${name} did not reach issued: ${JSON.stringify(domain)}`);
  return domain;
}

async function sanOf(server: RunningCerthub, name: string, token: string): Promise<{ names: string[]; serial: string }> {
  const { cert_pem } = (await (await fetchCertificate(server, name, token)).json()) as { cert_pem: string };
  const leaf = new X509Certificate(cert_pem);
  const names = (leaf.subjectAltName ?? '')
    .split(', ')
    .map((entry) => entry.replace(/^DNS:/, ''))
    .sort();
  return { names, serial: leaf.serialNumber };
}

test.serial('app, www.app and *.app in one certificate, served by the proxy to app, www.app and x.app (and redirected to HTTPS), not a.x.app', async (t) => {
  const { server, stack } = await certhubOnStack(t);
  const domain = await issuedWithNames(server, 'app', ['www.app', '*.app']);
  t.deepEqual(domain.names, ['www.app.example.test', '*.app.example.test']);
  const { names, serial } = await sanOf(server, 'app', domain.token);
  t.deepEqual(names, ['*.app.example.test', 'app.example.test', 'www.app.example.test']);
  // The address record of each name but the wildcard; no challenge TXT left.
  t.deepEqual(await stack.powerdns.dig('www.app.example.test', 'A'), ['203.0.113.20']);
  t.deepEqual(await recordsOf(stack.powerdns, '*.app.example.test'), []);
  t.deepEqual(await recordsOf(stack.powerdns, '_acme-challenge.app.example.test'), []);

  // Another domain may not hold a name of this one.
  const overlap = await addWithNames(server, { name: 'other', target: '203.0.113.21', names: ['www.app'] });
  t.is(overlap.status, 409);
  t.regex(((await overlap.json()) as { error: string }).error, /www\.app\.example\.test is a name of the domain app\.example\.test/);

  const backend = await startProxyBackend(t, 'app-backend');
  const proxy = await startAgentProxy(t, {
    server: server.url,
    routes: { 'app.example.test': { backend: backend.address, token: domain.token } },
    host: '127.0.0.1',
    port: 0,
    material_dir: await temporaryDir(t, 'name-sets-material-'),
    allow_untrusted: true,
    redirect_port: 0,
  });
  await proxy.process.waitFor(/certificate served/, 30_000);
  for (const sni of ['app.example.test', 'www.app.example.test', 'x.app.example.test']) {
    t.is((await presentedCertificate(proxy.port, sni)).serialNumber.toLowerCase(), serial.toLowerCase(), sni);
    const response = await proxiedRequest(proxy.port, sni, { path: '/whoami' });
    t.is(response.statusCode, 200, sni);
    let text = '';
    for await (const chunk of response) text += String(chunk);
    const body = JSON.parse(text) as { name: string };
    t.is(body.name, 'app-backend', sni);
  }
  // One label only: a name two levels under the wildcard's parent has no certificate here.
  await t.throwsAsync(presentedCertificate(proxy.port, 'a.x.app.example.test'));

  // The plain listener sends every name of the certificate on to HTTPS, and no other.
  const plain = (name: string) =>
    new Promise<string>((resolve, reject) => {
      get({ host: '127.0.0.1', port: proxy.redirectPort, path: '/p?q=1', headers: { host: name } }, (answer) => {
        answer.resume();
        resolve(`${answer.statusCode} ${answer.headers.location ?? ''}`);
      }).on('error', reject);
    });
  for (const name of ['app.example.test', 'www.app.example.test', 'x.app.example.test'])
    t.is(await plain(name), `308 https://${name}:${proxy.port}/p?q=1`, name);
  t.is(await plain('a.x.app.example.test'), '404 ');
});

test.serial('a nested name and the apex issued; a changed set is ordered again at once, its dropped record removed', async (t) => {
  const { server, stack } = await certhubOnStack(t);
  const domain = await issuedWithNames(server, 'deep', ['a.b.deep', '@']);
  const first = await sanOf(server, 'deep', domain.token);
  t.deepEqual(first.names, ['a.b.deep.example.test', 'deep.example.test', 'example.test']);
  t.deepEqual(await stack.powerdns.dig('a.b.deep.example.test', 'A'), ['203.0.113.20']);
  t.deepEqual(await stack.powerdns.dig('example.test', 'A'), ['203.0.113.20']);

  const changed = await server.admin('api/admin/domains/deep', { method: 'PATCH', body: { names: ['a.b.deep'] } });
  t.is(changed.status, 200);
  t.deepEqual(((await changed.json()) as DomainView).names, ['a.b.deep.example.test']);
  let second = first;
  t.true(
    await eventually(
      async () => {
        second = await sanOf(server, 'deep', domain.token);
        return second.serial !== first.serial;
      },
      issueDeadlineMs,
      250,
    ),
    'a certificate for the new set is served',
  );
  t.deepEqual(second.names, ['a.b.deep.example.test', 'deep.example.test']);
  t.true(await eventually(async () => (await stack.powerdns.dig('example.test', 'A')).length === 0, 30_000, 100), 'the apex record is removed');
});
