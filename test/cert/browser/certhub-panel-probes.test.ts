// certhub's probes in the panel, against `certhub run --demo` with probes on: three hosts report the
// newest certificate, each on the port of a real server on 127.0.0.1: one serves the newest
// certificate (current), one an old one (stale: the probe sees another certificate), one accepts and
// says nothing (stale: the probe fails by its deadline). Each host card shows its probe; checked by axe.
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import test, { type ExecutionContext } from 'ava';
import type { DomainDetail } from '../../../actors/cert/browser.js';
import type { HostReport } from '../../../actors/cert/hosts/report.js';
import { assertAccessible } from '../../helpers/accessibility.js';
import { saveScreenshot } from '../../helpers/browser.js';
import { testCertificate } from '../../helpers/certificates.js';
import { addIssuedDomain } from '../../helpers/certhub-agent.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { eventually } from '../../helpers/fixture-host.js';
import { desktop, expandRow, openPanel, reportHost, servedSha256, unexpected } from '../helpers/certhub-panel.js';

/** A server on 127.0.0.1: TLS with `material`, or, without, one that accepts and never answers. */
async function listen(t: ExecutionContext, material?: { certPem: string; keyPem: string }): Promise<number> {
  const sockets = new Set<Socket>();
  const server =
    material === undefined
      ? createTcpServer((socket) => {
          sockets.add(socket);
          socket.on('error', () => {});
        })
      : createTlsServer({ cert: material.certPem, key: material.keyPem }, (socket) => socket.end()).on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return (server.address() as AddressInfo).port;
}

test('each host card shows its probe; a probe that sees an old certificate or no handshake makes the host stale', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t, { probes: { enabled: true, interval_seconds: 60, timeout_seconds: 1 } }));
  const app = await addIssuedDomain(server, 'app');
  const newest = {
    certPem: await (await server.admin('api/admin/domains/app/cert.crt')).text(),
    keyPem: await (await server.admin('api/admin/domains/app/key.key')).text(),
  };
  const old = await testCertificate({
    name: app.name,
    serialHex: '0e',
    notBefore: new Date(Date.now() - 60 * 86_400_000),
    notAfter: new Date(Date.now() + 86_400_000),
  });
  const ports = { current: await listen(t, newest), old: await listen(t, old), mute: await listen(t) };
  const sha256 = await servedSha256(server, 'app');
  const report = (id: string, name: string, port: number): HostReport => ({
    host_id: `host-${id}-0123456789ab`,
    host_name: name,
    agent: 'fetch',
    agent_version: '1.4.0',
    serving: { sha256, not_after: new Date(Date.now() + 80 * 86_400_000).toISOString() },
    reload: { ok: true, exit_code: 0, output: [] },
    next_check_at: new Date(Date.now() + 3_600_000).toISOString(),
    port,
  });
  await reportHost(server, app, report('a', 'web-1', ports.current));
  await reportHost(server, app, report('b', 'web-2', ports.old));
  await reportHost(server, app, report('c', 'web-3', ports.mute));
  const probed = await eventually(
    async () => ((await (await server.admin('api/admin/domains/app')).json()) as DomainDetail).hosts.every((host) => host.probe !== null),
    20_000,
    200,
  );
  t.true(probed, 'each host probed');

  const { page, problems } = await openPanel(t, server, { ...desktop, colorScheme: 'dark' });
  const details = await expandRow(page, app.name);
  const hosts = details.getByRole('region', { name: `Hosts of ${app.name}` });
  const host = (name: string) => hosts.locator('.host', { has: page.locator('.host-name', { hasText: new RegExp(`^${name}$`) }) });
  await host('web-1').waitFor();
  t.is(await details.locator('.hosts-summary').textContent(), '2 of 3 stale');
  t.is(await host('web-1').getAttribute('data-state'), 'current');
  t.regex(
    (await host('web-1').textContent()) ?? '',
    new RegExp(`Probe127\\.0\\.0\\.1:${ports.current}: ([0-9a-f]{2}:){7}[0-9a-f]{2}…, \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC`),
  );
  t.is(await host('web-1').locator('.host-problems').count(), 0);
  t.is(await host('web-2').getAttribute('data-state'), 'stale');
  t.is(
    await host('web-2').locator('.host-problems').textContent(),
    `A probe of 127.0.0.1:${ports.old} sees another certificate than the newest, whatever the agent reports`,
  );
  t.is(await host('web-3').getAttribute('data-state'), 'stale');
  t.is(
    await host('web-3').locator('.host-problems').textContent(),
    `A probe of 127.0.0.1:${ports.mute} cannot complete a handshake: no handshake within 1000 ms`,
  );
  t.regex((await host('web-3').textContent()) ?? '', new RegExp(`Probe127\\.0\\.0\\.1:${ports.mute}: no handshake within 1000 ms, `));
  await host('web-2').scrollIntoViewIfNeeded();
  await saveScreenshot(page, 'certhub-panel-hosts-probes-desktop');
  await assertAccessible(t, page, "an expanded row's probed hosts");
  t.deepEqual(unexpected(problems), []);
});
