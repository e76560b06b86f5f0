// Renewal by the lifetime rule, driven by the domains actor's book on a fake clock: a certificate is
// renewed when half (10 days or less) or a third of its lifetime remains, the old material is served
// while the renewal runs and when it fails, and the token never changes.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import type { DomainRecord } from '../../../actors/cert/domains/record.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { day, hour, startBook, type BookHarness } from '../helpers/domain-book.js';

const start = Date.UTC(2026, 0, 1);

/** Adds `label`, waits for its first certificate, and returns its renewal instant as stored. */
async function issueFirst(harness: BookHarness, label: string): Promise<{ dueAt: number; token: string; certPem: string }> {
  const added = await harness.book.add({ name: label, target: '203.0.113.5' });
  await harness.until(label, (view) => view.status === 'issued');
  const record = await harness.storedRecord(label);
  const certPem = harness.replica.get(record.name)?.material?.cert_pem ?? '';
  if (record.renewal.due_at === null) throw new Error('no renewal planned');
  return { dueAt: Date.parse(record.renewal.due_at), token: added.token, certPem };
}

/** Lets every promise the clock's last step started settle far enough to start an order. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

for (const { lifetime, remaining } of [
  { lifetime: 6 * day, remaining: 1 / 2 },
  { lifetime: 90 * day, remaining: 1 / 3 },
]) {
  test(`a ${lifetime / day}-day certificate is renewed when ${remaining === 0.5 ? 'half' : 'a third'} of its lifetime remains; the token stays`, async (t) => {
    const clock = new ManualClock(start);
    const harness = await startBook(t, { dataDir: await certDataDir(t), clock, lifetimeMs: lifetime });
    const first = await issueFirst(harness, 'app');
    const stored = await harness.storedRecord('app');
    t.is(stored.renewal.basis, 'lifetime');
    t.not(stored.renewal.cert_id, null);
    const notBefore = Date.parse(stored.issued_at ?? '');
    const nominal = notBefore + lifetime * (1 - remaining);
    // The lifetime rule spreads renewals over the 5% of the lifetime before the nominal instant.
    t.true(first.dueAt <= nominal && first.dueAt >= nominal - lifetime * 0.05, `due ${new Date(first.dueAt).toISOString()}`);

    clock.advance(first.dueAt - 60_000 - clock.now());
    await settle();
    t.deepEqual(harness.issuer.orders, ['app.example.com'], 'not renewed a minute before it is due');

    harness.issuer.hold();
    // The scheduler looks at least every 2 hours: the renewal starts within that of its instant.
    clock.advance(2 * hour);
    const renewing = await harness.until('app', (view) => view.status === 'issuing');
    t.is(harness.replica.get('app.example.com')?.material?.cert_pem, first.certPem, 'the old material is served during the renewal');
    t.is(renewing.token, first.token);
    harness.issuer.resume();

    const renewed = await harness.until('app', (view) => view.status === 'issued');
    t.deepEqual(harness.issuer.orders, ['app.example.com', 'app.example.com']);
    t.deepEqual(harness.issuer.replaced, [undefined, undefined], 'no replaces without ARI');
    t.is(renewed.token, first.token, 'the token never changes on renewal');
    t.not(harness.replica.get('app.example.com')?.material?.cert_pem, first.certPem, 'new material is served');
    const next = await harness.storedRecord('app');
    t.true(Date.parse(next.renewal.due_at ?? '') > first.dueAt, 'the next renewal is planned for the new certificate');
  });
}

test('a failed renewal keeps serving the old material, shows the error, and is retried with backoff', async (t) => {
  const clock = new ManualClock(start);
  const harness = await startBook(t, { dataDir: await certDataDir(t), clock, lifetimeMs: 6 * day });
  const first = await issueFirst(harness, 'app');
  harness.issuer.failures.push('the CA is down');

  clock.advance(first.dueAt - clock.now());
  const failed = await harness.until('app', (view) => view.status === 'error');
  t.is(failed.error, 'the CA is down');
  t.is(failed.token, first.token);
  t.is(harness.replica.get('app.example.com')?.material?.cert_pem, first.certPem, 'the old material is still served');
  t.not(failed.next_attempt_at, null);
  const retryAt = Date.parse(failed.next_attempt_at ?? '');
  t.true(retryAt > clock.now(), 'the retry waits for its backoff delay');

  clock.advance(retryAt - clock.now());
  const renewed = await harness.until('app', (view) => view.status === 'issued');
  t.is(renewed.error, null);
  t.is(renewed.token, first.token);
  t.not(harness.replica.get('app.example.com')?.material?.cert_pem, first.certPem);
  t.is(harness.issuer.orders.length, 3);
});

test('after a restart, a certificate whose renewal came due meanwhile is renewed', async (t) => {
  const dataDir = await certDataDir(t);
  const clock = new ManualClock(start);
  const before = await startBook(t, { dataDir, clock, lifetimeMs: 6 * day });
  const first = await issueFirst(before, 'app');
  await before.book.stop();

  clock.advance(first.dueAt + hour - clock.now());
  const after = await startBook(t, { dataDir, clock, lifetimeMs: 6 * day });
  clock.advance(0);
  const renewed = await after.until('app', (view) => view.status === 'issued' && after.issuer.orders.length === 1);
  t.is(renewed.token, first.token);
  t.not(after.replica.get('app.example.com')?.material?.cert_pem, first.certPem);
});

test('a certificate stored before renewal was planned gets its renewal planned at start', async (t) => {
  const dataDir = await certDataDir(t);
  const clock = new ManualClock(start);
  const before = await startBook(t, { dataDir, clock, lifetimeMs: 90 * day });
  await issueFirst(before, 'app');
  await before.book.stop();
  const path = join(dataDir, 'domains', 'app.example.com.json');
  const file = JSON.parse(await readFile(path, 'utf8')) as { record: DomainRecord };
  await writeFile(path, JSON.stringify({ ...file, record: { ...file.record, renewal: { ...file.record.renewal, due_at: null, basis: null, cert_id: null } } }));

  const after = await startBook(t, { dataDir, clock, lifetimeMs: 90 * day });
  // The plan is written in the background once the book runs; stopping waits for the write under way.
  await after.book.stop();
  const planned = await after.storedRecord('app');
  t.is(planned.renewal.basis, 'lifetime');
  const dueAt = Date.parse(planned.renewal.due_at ?? '');
  const notBefore = Date.parse(planned.issued_at ?? '');
  t.true(dueAt <= notBefore + 60 * day && dueAt >= notBefore + 55.5 * day);
});
