// certhub's probes of the hosts that report (actors/cert/hosts/prober.ts), without a network: a probe
// that sees another certificate than the newest, or cannot complete a handshake, makes the host stale
// whatever its agent reports; the prober probes each host at its report's address (or the one the
// operator gave its name) on a schedule of the injected clock, and at once after a report naming
// another certificate; a probe result is kept in the host's file; the `probes` section's defaults.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import { assessHosts, recordOfReport, type HostRecord, type ProbeResult } from '../../../actors/cert/hosts/deployment.js';
import { certificateSha256, HostBook, type HostsMessage } from '../../../actors/cert/hosts/host-book.js';
import { openHostStore } from '../../../actors/cert/hosts/host-store.js';
import type { ProbeTarget } from '../../../actors/cert/hosts/probe.js';
import { HostProber, probeTargetOf } from '../../../actors/cert/hosts/prober.js';
import { probesSchema } from '../../../actors/cert/hosts/probe-schema.js';
import type { HostReport } from '../../../actors/cert/hosts/report.js';
import { demoMaterial } from '../../../actors/cert/index.js';
import { FileDocuments } from '../../../actors/cert/store/documents.js';

const judgement = { staleMarginMs: 60_000, unservedAfterMs: 3_600_000 };
const newSha = 'a'.repeat(64);
const oldSha = 'b'.repeat(64);
const log = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

function host(id: string, probe: ProbeResult | null, extra: Partial<HostRecord> = {}): HostRecord {
  return {
    id,
    name: `web-${id}`,
    address: '192.0.2.1',
    agent: 'proxy',
    agent_version: '1.0.0',
    sha256: newSha,
    not_after: '2030-01-01T00:00:00.000Z',
    served_since: '2029-01-01T00:00:00.000Z',
    reload: null,
    last_report_at: '2029-01-01T00:00:00.000Z',
    next_check_at: null,
    port: 8443,
    server: null,
    probe,
    host_token: null,
    ...extra,
  };
}

const seen = (sha256: string): ProbeResult => ({
  at: '2029-01-01T00:00:10.000Z',
  address: '192.0.2.1:8443',
  sha256,
  not_after: '2030-01-01T00:00:00.000Z',
  error: null,
});
const refused: ProbeResult = {
  at: '2029-01-01T00:00:10.000Z',
  address: '192.0.2.1:8443',
  sha256: null,
  not_after: null,
  error: 'connect ECONNREFUSED 192.0.2.1:8443',
};

test('a probe that sees another certificate than the newest, or cannot connect, makes a host stale whatever its agent reports', (t) => {
  const { hosts, deployment } = assessHosts(
    [host('a', seen(newSha)), host('b', seen(oldSha)), host('c', refused), host('d', null), host('e', seen(oldSha), { sha256: oldSha })],
    { sha256: newSha, issued_at: '2029-01-01T00:00:00.000Z' },
    Date.parse('2029-01-01T00:01:00.000Z'),
    judgement,
  );
  t.deepEqual(
    hosts.map((each) => [each.id, each.state, each.problems]),
    [
      ['a', 'current', []],
      ['b', 'stale', ['probe_old_certificate']],
      ['c', 'stale', ['probe_failed']],
      ['d', 'current', []],
      ['e', 'stale', ['old_certificate', 'probe_old_certificate']],
    ],
  );
  t.deepEqual(deployment, { hosts: 5, stale: 3, state: 'stale', unserved: false });
  t.deepEqual(
    assessHosts([host('c', refused)], null, 0, judgement).hosts[0]?.problems,
    ['probe_failed'],
    'before any certificate, a failed probe still counts',
  );
});

test("a report keeps the host's last probe from the same address, and drops one of another address", (t) => {
  const report = {
    host_id: 'abcdefghijklmnop',
    host_name: 'web',
    agent: 'proxy' as const,
    agent_version: '1.0.0',
    serving: { sha256: newSha, not_after: '2030-01-01T00:00:00.000Z' },
    reload: null,
    next_check_at: null,
    port: 8443,
  };
  const probed = { ...recordOfReport(undefined, report, '192.0.2.1', 1000), probe: seen(newSha) };
  t.deepEqual(recordOfReport(probed, report, '192.0.2.1', 2000).probe, seen(newSha));
  t.is(recordOfReport(probed, report, '192.0.2.9', 2000).probe, null);
  t.is(recordOfReport(probed, report, '192.0.2.1', 2000).port, 8443);
  t.is(recordOfReport(undefined, { ...report, port: undefined }, '192.0.2.1', 2000).port, null, 'a fetch says no port');
});

test("a host is probed at its report's address and port, or at the address the operator gave its name", (t) => {
  const settings = {
    intervalMs: 60_000,
    timeoutMs: 1000,
    port: 443,
    addresses: { 'web-nat': { host: '10.0.0.5', port: null }, 'web-v6': { host: '2001:db8::5', port: 9443 } },
  };
  t.deepEqual(probeTargetOf('app.example.test', host('a', null), settings), { host: '192.0.2.1', port: 8443, servername: 'app.example.test' });
  t.deepEqual(probeTargetOf('app.example.test', host('a', null, { port: null }), settings), { host: '192.0.2.1', port: 443, servername: 'app.example.test' });
  t.deepEqual(probeTargetOf('app.example.test', host('nat', null), settings), { host: '10.0.0.5', port: 8443, servername: 'app.example.test' });
  t.deepEqual(probeTargetOf('app.example.test', host('v6', null), settings), { host: '2001:db8::5', port: 9443, servername: 'app.example.test' });
});

test('probes: off by default; addresses are host, host:port or [v6]:port', (t) => {
  t.deepEqual(probesSchema.parse({}), { enabled: false, interval_seconds: 300, timeout_seconds: 5, port: 443, addresses: {} });
  t.deepEqual(probesSchema.parse({ enabled: true, addresses: { a: 'web-1.internal', b: '192.0.2.7:8443', c: '[2001:db8::1]:443' } }).addresses, {
    a: { host: 'web-1.internal', port: null },
    b: { host: '192.0.2.7', port: 8443 },
    c: { host: '2001:db8::1', port: 443 },
  });
  t.false(probesSchema.safeParse({ addresses: { a: 'http://web-1/' } }).success);
  t.false(probesSchema.safeParse({ addresses: { a: '192.0.2.7:70000' } }).success);
  t.false(probesSchema.safeParse({ interval_seconds: 1 }).success, 'not more often than every 10 s');
});

test('the prober probes every host each interval and a report naming another certificate at once; the result is judged and kept', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cert-probes-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const clock = new ManualClock(Date.parse('2029-01-01T00:00:00.000Z'));
  const published: HostsMessage[] = [];
  const material = await demoMaterial('app.example.test');
  const current = certificateSha256(material.certPem);
  const { store, loaded } = await openHostStore(new FileDocuments(dir));
  const book = new HostBook(loaded.hosts, {
    store,
    clock,
    log,
    publish: (message) => published.push(message),
    judgement,
    maxPerDomain: 10,
    // The prober is made below, before any report.
    probeSoon: (name, record) => prober.soon(name, record),
  });
  book.domainChanged({
    type: 'domain',
    domain: { name: 'app.example.test', issued_at: '2029-01-01T00:00:00.000Z' } as never,
    material: { cert_pem: material.certPem, chain_pem: '', key_pem: material.keyPem },
  });
  await book.settle();
  /** What each address serves, as the fake network answers; absent: refused. */
  const served = new Map<string, string>([['192.0.2.1:8443', oldSha]]);
  const asked: ProbeTarget[] = [];
  const prober = new HostProber({
    clock,
    log,
    settings: { intervalMs: 60_000, timeoutMs: 1000, port: 443, addresses: {} },
    probe: (target) => {
      asked.push(target);
      const sha256 = served.get(`${target.host}:${target.port}`);
      return sha256 === undefined
        ? Promise.reject(new Error(`connect ECONNREFUSED ${target.host}:${target.port}`))
        : Promise.resolve({ sha256, not_after: '2030-01-01T00:00:00.000Z' });
    },
    hosts: () => book.reporting(),
    record: async (name, id, result) => {
      await book.recordProbe(name, id, result);
      kept += 1;
    },
  });
  let kept = 0;
  prober.start();
  const report = (port: number | null): HostReport => ({
    host_id: 'web1xxxxxxxxxxxx',
    host_name: 'web-1',
    agent: 'proxy',
    agent_version: '1.0.0',
    serving: { sha256: current, not_after: '2030-01-01T00:00:00.000Z' },
    reload: { ok: true, exit_code: null, output: [] },
    next_check_at: null,
    ...(port === null ? {} : { port }),
  });
  const lastHost = () => published.at(-1)?.hosts[0];
  /** Waits (on real time: the host files are written) until `count` probe results have been kept. */
  const probed = async (count: number) => {
    for (let waited = 0; kept < count && waited < 5000; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  t.is((await book.report('app.example.test', report(8443), '192.0.2.1')).state, 'current', 'the agent says it serves the newest');
  await probed(1);
  t.deepEqual(asked, [{ host: '192.0.2.1', port: 8443, servername: 'app.example.test' }], 'probed at once, at its address and port');
  t.deepEqual(lastHost()?.problems, ['probe_old_certificate'], 'the probe sees the old certificate: stale');
  t.like(lastHost()?.probe, { address: '192.0.2.1:8443', sha256: oldSha, error: null });

  served.set('192.0.2.1:8443', current);
  clock.advance(60_000);
  await probed(2);
  t.is(asked.length, 2, 'probed again at the next interval');
  t.is(lastHost()?.state, 'current');

  served.delete('192.0.2.1:8443');
  clock.advance(60_000);
  await probed(3);
  t.deepEqual(lastHost()?.problems, ['probe_failed']);
  t.regex(lastHost()?.probe?.error ?? '', /ECONNREFUSED/);

  await book.report('app.example.test', report(8443), '192.0.2.1');
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.is(asked.length, 3, 'a report of the same certificate, port and address waits for the next round');

  await prober.stop();
  await book.stop();
  const reloaded = await openHostStore(new FileDocuments(dir));
  t.like(reloaded.loaded.hosts.get('app.example.test')?.get('web1xxxxxxxxxxxx'), { port: 8443, probe: { address: '192.0.2.1:8443', sha256: null } });
  t.true(
    asked.every((target) => target.host === '192.0.2.1'),
    'nothing but the address the reports came from',
  );
});
