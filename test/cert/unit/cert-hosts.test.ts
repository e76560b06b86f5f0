// The judgement of the hosts that report (actors/cert/hosts/): an older certificate, a failed reload
// and silence past the next check plus the margin make a host stale; a newest certificate served
// nowhere flags the domain once its time has passed; the book publishes again when a deadline passes,
// without a report, keeps a bounded number of hosts per domain, and tells of a host that turns stale.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import { assessHosts, deploymentWords, recordOfReport, type HostRecord } from '../../../actors/cert/hosts/deployment.js';
import { certificateSha256, HostBook, type HostsMessage } from '../../../actors/cert/hosts/host-book.js';
import type { DomainNotice } from '../../../actors/cert/domains/notices.js';
import { openHostStore } from '../../../actors/cert/hosts/host-store.js';
import type { HostReport } from '../../../actors/cert/hosts/report.js';
import { demoMaterial } from '../../../actors/cert/index.js';
import { FileDocuments } from '../../../actors/cert/store/documents.js';

const judgement = { staleMarginMs: 60_000, unservedAfterMs: 3_600_000 };
const newSha = 'a'.repeat(64);
const oldSha = 'b'.repeat(64);

function host(id: string, sha256: string, extra: Partial<HostRecord> = {}): HostRecord {
  return {
    id,
    name: `web-${id}`,
    address: '192.0.2.1',
    agent: 'fetch',
    agent_version: '1.0.0',
    sha256,
    not_after: '2030-01-01T00:00:00.000Z',
    served_since: '2029-01-01T00:00:00.000Z',
    reload: null,
    last_report_at: '2029-01-01T00:00:00.000Z',
    next_check_at: '2029-01-01T01:00:00.000Z',
    port: null,
    server: null,
    probe: null,
    host_token: null,
    ...extra,
  };
}

test('a host is stale for an older certificate, a failed reload, or silence past its next check plus the margin', (t) => {
  const now = Date.parse('2029-01-01T01:00:30.000Z');
  const { hosts, deployment, nextChangeAt } = assessHosts(
    [
      host('a', newSha),
      host('b', oldSha),
      host('c', newSha, { reload: { ok: false, exit_code: 1, output: ['bad'] } }),
      host('d', newSha, { next_check_at: '2029-01-01T00:59:00.000Z' }),
      host('e', newSha, { next_check_at: null }),
    ],
    { sha256: newSha, issued_at: '2029-01-01T00:00:00.000Z' },
    now,
    judgement,
  );
  t.deepEqual(
    hosts.map((each) => [each.id, each.state, each.problems]),
    [
      ['a', 'current', []],
      ['b', 'stale', ['old_certificate']],
      ['c', 'stale', ['reload_failed']],
      ['d', 'stale', ['silent']],
      ['e', 'current', []],
    ],
  );
  t.deepEqual(deployment, { hosts: 5, stale: 3, state: 'stale', unserved: false });
  t.is(deploymentWords(deployment), '3 of 5 stale');
  t.is(nextChangeAt, Date.parse('2029-01-01T01:01:00.000Z'), "the next deadline: a's and c's next check plus the margin");
  t.is(deploymentWords({ hosts: 2, stale: 0, state: 'current', unserved: false }), '2 hosts: all current');
  t.is(deploymentWords({ hosts: 0, stale: 0, state: 'none', unserved: false }), 'no host reports');
});

test('a newest certificate that no host serves flags the domain once unserved_after has passed since its issuance', (t) => {
  const newest = { sha256: newSha, issued_at: '2029-01-01T00:00:00.000Z' };
  const hosts = [host('a', oldSha, { next_check_at: null })];
  const early = assessHosts(hosts, newest, Date.parse('2029-01-01T00:30:00.000Z'), judgement);
  t.false(early.deployment.unserved);
  t.is(early.nextChangeAt, Date.parse('2029-01-01T01:00:00.000Z'));
  t.true(assessHosts(hosts, newest, Date.parse('2029-01-01T01:00:00.000Z'), judgement).deployment.unserved);
  t.false(assessHosts([], newest, Date.parse('2030-01-01T00:00:00.000Z'), judgement).deployment.unserved, 'no host reports: nothing to flag');
});

test('served_since stays while a host serves the same certificate and moves with a new one', (t) => {
  const report = (sha256: string) => ({
    host_id: 'abcdefghijklmnop',
    host_name: 'web',
    agent: 'proxy' as const,
    agent_version: '1.0.0',
    serving: { sha256, not_after: '2030-01-01T00:00:00.000Z' },
    reload: null,
    next_check_at: null,
  });
  const first = recordOfReport(undefined, report(oldSha), '192.0.2.1', 1000);
  const same = recordOfReport(first, report(oldSha), '192.0.2.1', 5000);
  t.is(same.served_since, first.served_since);
  t.is(same.last_report_at, new Date(5000).toISOString());
  t.is(recordOfReport(same, report(newSha), '192.0.2.1', 9000).served_since, new Date(9000).toISOString());
});

test('the book publishes a host again when its deadline passes, drops hosts with their domain, and keeps a bounded number', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cert-hosts-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const clock = new ManualClock(Date.parse('2029-01-01T00:00:00.000Z'));
  const published: HostsMessage[] = [];
  const { store, loaded } = await openHostStore(new FileDocuments(dir));
  const log = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
  const book = new HostBook(loaded.hosts, { store, clock, log: log, publish: (message) => published.push(message), judgement, maxPerDomain: 2 });
  const material = await demoMaterial('app.example.test');
  const domain = { name: 'app.example.test', issued_at: '2029-01-01T00:00:00.000Z' };
  book.domainChanged({ type: 'domain', domain: domain as never, material: { cert_pem: material.certPem, chain_pem: '', key_pem: material.keyPem } });
  t.deepEqual(published, [], 'no host yet: nothing published');
  const report = (id: string, nextCheckInMs: number): HostReport => ({
    host_id: id.padEnd(16, 'x'),
    host_name: id,
    agent: 'fetch',
    agent_version: '1.0.0',
    serving: { sha256: newSha, not_after: '2030-01-01T00:00:00.000Z' },
    reload: null,
    next_check_at: new Date(clock.now() + nextCheckInMs).toISOString(),
  });
  const first = await book.report('app.example.test', report('one', 10_000), '192.0.2.1');
  t.deepEqual(first, { hosts: 1, stale: 1, state: 'stale', unserved: false }, 'it serves another certificate than the newest');
  await book.report('app.example.test', report('two', 600_000), '192.0.2.2');
  await t.throwsAsync(() => book.report('app.example.test', report('three', 10_000), '192.0.2.3'), { message: /has 2 hosts reporting, the most it keeps/ });
  published.length = 0;
  clock.advance(70_001);
  t.deepEqual(
    published.at(-1)?.hosts.map((each) => [each.name, each.problems]),
    [
      ['one', ['old_certificate', 'silent']],
      ['two', ['old_certificate']],
    ],
    'published again once one was silent past its deadline',
  );
  const made = await book.report('app.example.test', report('three', 10_000), '192.0.2.3');
  t.is(made.hosts, 2, 'the silent host made room');
  await t.throwsAsync(() => book.report('other.example.test', report('one', 10_000), '192.0.2.1'), { message: 'no domain other.example.test' });
  await store.flush();
  const reloaded = await openHostStore(new FileDocuments(dir));
  t.deepEqual([...(reloaded.loaded.hosts.get('app.example.test')?.keys() ?? [])].sort(), ['threexxxxxxxxxxx', 'twoxxxxxxxxxxxxx']);
  book.domainChanged({ type: 'removed', name: 'app.example.test' });
  t.deepEqual(published.at(-1), { type: 'hosts', name: 'app.example.test', hosts: [], deployment: { hosts: 0, stale: 0, state: 'none', unserved: false } });
  await book.stop();
  t.is((await openHostStore(new FileDocuments(dir))).loaded.hosts.size, 0);
});

test('a host that turns stale is told once, until it is current again; a host stale already at the start is not told again', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cert-hosts-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const clock = new ManualClock(Date.parse('2029-01-01T00:00:00.000Z'));
  const log = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
  const material = await demoMaterial('app.example.test');
  const change = {
    type: 'domain' as const,
    domain: { name: 'app.example.test', issued_at: '2029-01-01T00:00:00.000Z' } as never,
    material: { cert_pem: material.certPem, chain_pem: '', key_pem: material.keyPem },
  };
  const open = async (notices: DomainNotice[]) => {
    const { store, loaded } = await openHostStore(new FileDocuments(dir));
    const book = new HostBook(loaded.hosts, { store, clock, log, publish: () => {}, judgement, maxPerDomain: 10, notify: (notice) => notices.push(notice) });
    book.domainChanged(change);
    await book.settle();
    return book;
  };
  const notices: DomainNotice[] = [];
  const book = await open(notices);
  const report = (): HostReport => ({
    host_id: 'web1xxxxxxxxxxxx',
    host_name: 'web-1',
    agent: 'fetch',
    agent_version: '1.0.0',
    serving: { sha256: certificateSha256(material.certPem), not_after: '2030-01-01T00:00:00.000Z' },
    reload: null,
    next_check_at: new Date(clock.now() + 10_000).toISOString(),
  });
  t.is((await book.report('app.example.test', report(), '192.0.2.1')).state, 'current');
  t.deepEqual(notices, []);
  clock.advance(70_001);
  t.like(notices, [
    {
      event: 'host_stale',
      domain: 'app.example.test',
      reason: 'not heard from by its next check',
      host: { id: 'web1xxxxxxxxxxxx', name: 'web-1' },
    },
  ]);
  clock.advance(86_400_000);
  t.is(notices.length, 1, 'once while it stays stale');
  await book.report('app.example.test', report(), '192.0.2.1');
  clock.advance(70_001);
  t.is(notices.length, 2, 'current again, then stale again: told again');
  // A failed reload is its own event: the certificate came, the host's reload command is what to fix.
  await book.report('app.example.test', report(), '192.0.2.1');
  t.is(notices.length, 2, 'current again: nothing to tell');
  await book.report('app.example.test', { ...report(), reload: { ok: false, exit_code: 3, output: ['nginx: [emerg] bad config'] } }, '192.0.2.1');
  t.like(notices[2], { event: 'host_reload_failed', domain: 'app.example.test', host: { id: 'web1xxxxxxxxxxxx', name: 'web-1' } });
  t.regex(notices[2]?.reason ?? '', /reload/);
  await book.stop();

  const afterRestart: DomainNotice[] = [];
  const reopened = await open(afterRestart);
  clock.advance(86_400_000);
  t.deepEqual(afterRestart, [], 'stale before the start: not told again');
  await reopened.stop();
});
