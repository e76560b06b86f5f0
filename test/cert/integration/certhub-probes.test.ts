// certhub's probes on real sockets: a TLS handshake (actors/cert/hosts/probe.ts) sees what a node:tls
// server presents for the name it asks, and fails by its deadline against a server that never
// answers. A real `certhub run --demo` with probes on probes a real `certhub-agent proxy` at the
// address and port it reports (current), a host whose report claims the newest certificate while its
// address serves an old one (stale: the probe sees the old certificate), and one whose address accepts
// and says nothing (stale: the probe fails by its deadline); the API shows each probe.
import { createHash, X509Certificate } from 'node:crypto';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { createSecureContext, createServer as createTlsServer } from 'node:tls';
import test, { type ExecutionContext } from 'ava';
import type { DomainDetail, HostView } from '../../../actors/cert/browser.js';
import { probeTls } from '../../../actors/cert/hosts/probe.js';
import type { HostReport } from '../../../actors/cert/index.js';
import { reportingProxy } from '../../helpers/agent-proxy.js';
import { testCertificate, type TestCertificate } from '../../helpers/certificates.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addIssuedDomain } from '../../helpers/certhub-agent.js';
import { eventually } from '../../helpers/fixture-host.js';

const sha256Of = (certPem: string) => createHash('sha256').update(new X509Certificate(certPem).raw).digest('hex');

const certificate = (name: string, serialHex: string) =>
  testCertificate({ name, serialHex, notBefore: new Date(Date.now() - 86_400_000), notAfter: new Date(Date.now() + 30 * 86_400_000) });

/** A TLS server on 127.0.0.1 presenting `byName[servername]`, else `fallback`; it hangs up after the handshake. */
async function tlsServer(t: ExecutionContext, fallback: TestCertificate, byName: Record<string, TestCertificate> = {}): Promise<number> {
  const contexts = new Map(Object.entries(byName).map(([name, material]) => [name, createSecureContext({ cert: material.certPem, key: material.keyPem })]));
  const server = createTlsServer({ cert: fallback.certPem, key: fallback.keyPem, SNICallback: (name, callback) => callback(null, contexts.get(name)) });
  server.on('secureConnection', (socket) => socket.end());
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

/** A TCP server on 127.0.0.1 that accepts and never says a word. */
async function silentServer(t: ExecutionContext): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return (server.address() as AddressInfo).port;
}

test('a probe sees the certificate a server presents for the name it asks, and fails by its deadline', async (t) => {
  const [old, fresh, other] = await Promise.all([
    certificate('app.example.test', '0a'),
    certificate('app.example.test', '0b'),
    certificate('other.example.test', '0c'),
  ]);
  const oldPort = await tlsServer(t, other, { 'app.example.test': old });
  const freshPort = await tlsServer(t, other, { 'app.example.test': fresh });
  const seenOld = await probeTls({ host: '127.0.0.1', port: oldPort, servername: 'app.example.test' }, 5000);
  t.is(seenOld.sha256, sha256Of(old.certPem), 'the old certificate, chosen by SNI');
  t.is(seenOld.not_after, new Date(new X509Certificate(old.certPem).validTo).toISOString());
  t.is((await probeTls({ host: '127.0.0.1', port: freshPort, servername: 'app.example.test' }, 5000)).sha256, sha256Of(fresh.certPem));
  t.is(
    (await probeTls({ host: '127.0.0.1', port: freshPort, servername: 'nope.example.test' }, 5000)).sha256,
    sha256Of(other.certPem),
    'another name, the default',
  );

  const silent = await silentServer(t);
  const started = Date.now();
  await t.throwsAsync(probeTls({ host: '127.0.0.1', port: silent, servername: 'app.example.test' }, 700), { message: 'no handshake within 700 ms' });
  const took = Date.now() - started;
  t.true(took >= 650 && took < 3000, `failed after ${took} ms`);
  await t.throwsAsync(probeTls({ host: '127.0.0.1', port: 1, servername: 'app.example.test' }, 2000), { message: /ECONNREFUSED/ });
});

test('certhub probes a real proxy, a host that claims the newest certificate but serves an old one, and one that never answers', async (t) => {
  const certhub = await startCerthub(t, await certhubDataDir(t, { probes: { enabled: true, interval_seconds: 10, timeout_seconds: 1 } }));
  const { name, token } = await addIssuedDomain(certhub, 'app');
  const proxy = await reportingProxy(t, certhub.url, { name, token }, 'edge-proxy');
  const detail = async () => (await (await certhub.admin('api/admin/domains/app')).json()) as DomainDetail;
  const hostNamed = async (hostName: string, ready: (host: HostView) => boolean) => {
    let found: HostView | undefined;
    await eventually(
      async () => {
        found = (await detail()).hosts.find((each) => each.name === hostName);
        return found !== undefined && ready(found);
      },
      30_000,
      200,
    );
    if (found === undefined) throw new Error(`no host ${hostName}: ${JSON.stringify(await detail())}`);
    return found;
  };

  const edge = await hostNamed('edge-proxy', (host) => host.probe !== null);
  t.is(edge.port, proxy.port, 'the proxy reports the port it serves on');
  t.like(edge.probe, { address: `127.0.0.1:${proxy.port}`, sha256: edge.sha256, error: null });
  t.is(edge.state, 'current');
  t.deepEqual(edge.problems, []);

  const old = await certificate(name, '0d');
  const oldPort = await tlsServer(t, old);
  const silentPort = await silentServer(t);
  const report = async (hostName: string, port: number) => {
    const body: HostReport = {
      host_id: `${hostName}-0123456789`,
      host_name: hostName,
      agent: 'fetch',
      agent_version: '1.0.0',
      serving: { sha256: edge.sha256, not_after: edge.not_after },
      reload: { ok: true, exit_code: 0, output: [] },
      next_check_at: new Date(Date.now() + 3_600_000).toISOString(),
      port,
    };
    const answer = await fetch(`${certhub.url}api/cert/${name}/report`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    t.is(answer.status, 200, await answer.text());
  };
  await report('web-liar', oldPort);
  await report('web-mute', silentPort);

  const liar = await hostNamed('web-liar', (host) => host.probe !== null);
  t.deepEqual(liar.problems, ['probe_old_certificate'], 'its report says the newest; the probe sees the old one');
  t.like(liar.probe, { address: `127.0.0.1:${oldPort}`, sha256: sha256Of(old.certPem), error: null });
  const mute = await hostNamed('web-mute', (host) => host.probe !== null);
  t.deepEqual(mute.problems, ['probe_failed']);
  t.like(mute.probe, { address: `127.0.0.1:${silentPort}`, sha256: null, error: 'no handshake within 1000 ms' });
  t.like((await detail()).deployment, { hosts: 3, stale: 2, state: 'stale' });
});
