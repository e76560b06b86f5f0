// certhub-agent proxy reports to a real `certhub run --demo` once it serves a route's certificate:
// certhub shows the proxy as a current host of the domain, with the fingerprint of the certificate the
// proxy presents in its handshakes.
import { createHash } from 'node:crypto';
import { connect } from 'node:tls';
import test from 'ava';
import type { DomainDetail } from '../../../actors/cert/browser.js';
import { reportingProxy } from '../../helpers/agent-proxy.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addIssuedDomain } from '../../helpers/certhub-agent.js';
import { eventually } from '../../helpers/fixture-host.js';

/** SHA-256 of the DER of the certificate the proxy on `port` presents for `servername`, hex. */
function presentedSha256(port: number, servername: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false }, () => {
      const { raw } = socket.getPeerCertificate();
      socket.end();
      resolve(createHash('sha256').update(raw).digest('hex'));
    });
    socket.once('error', reject);
    socket.setTimeout(20_000, () => socket.destroy(new Error('the handshake did not end within 20 s')));
  });
}

test('the proxy reports the certificate it serves: certhub shows it as a current host with that fingerprint', async (t) => {
  const certhub = await startCerthub(t, await certhubDataDir(t));
  const { name, token } = await addIssuedDomain(certhub, 'app');
  const proxy = await reportingProxy(t, certhub.url, { name, token }, 'edge-1');

  const detail = async () => (await (await certhub.admin('api/admin/domains/app')).json()) as DomainDetail;
  t.true(await eventually(async () => (await detail()).hosts.length === 1, 30_000, 200), JSON.stringify(await detail()));
  const served = await presentedSha256(proxy.port, name);
  const shown = await detail();
  const [host] = shown.hosts;
  t.is(host?.name, 'edge-1');
  t.is(host?.agent, 'proxy');
  t.is(host?.address, '127.0.0.1');
  t.is(host?.sha256, served, 'the fingerprint of the certificate the proxy presents');
  t.is(host?.not_after, shown.expires_at ?? '');
  t.is(host?.state, 'current');
  t.deepEqual(host?.problems, []);
  // The proxy's fronts took the material: no command ran, so no exit code.
  t.like(host?.reload, { ok: true, exit_code: null });
  // The next check is the fetch interval away.
  const nextCheck = Date.parse(host?.next_check_at ?? '') - Date.parse(host?.last_report_at ?? '');
  t.true(nextCheck > 30_000 && nextCheck <= 61_000, `next check ${nextCheck} ms after the report`);
  t.deepEqual(shown.deployment, { hosts: 1, stale: 0, state: 'current', unserved: false });
});
