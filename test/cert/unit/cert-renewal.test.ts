import test from 'ava';
import { readCertificateFacts } from '../../../actors/cert/renewal/certificate-facts.js';
import { expiryNoticeAt, lifetimeRenewalWindow, pickInstant, planRenewal, shortLivedMs, type RenewalPlan } from '../../../actors/cert/renewal/logic.js';
import { DueScheduler, maxRenewalCheckMs } from '../../../actors/cert/renewal/scheduler.js';
import { ManualClock, type Clock } from '../../../src/actor/clock.js';
import { testCertificate } from '../../helpers/certificates.js';

const hour = 3_600_000;
const day = 24 * hour;

test('lifetime rule: a third of the lifetime left, spread over the 5% before it', (t) => {
  t.deepEqual(lifetimeRenewalWindow({ notBefore: 0, notAfter: 90 * day }), { start: 60 * day - 4.5 * day, end: 60 * day });
  t.is(lifetimeRenewalWindow({ notBefore: 0, notAfter: 10 * day + 1 }).end, Math.floor(10 * day + 1 - (10 * day + 1) / 3));
});

test('lifetime rule: half the lifetime left for certificates of 10 days or less (6-day certificates)', (t) => {
  t.deepEqual(lifetimeRenewalWindow({ notBefore: 0, notAfter: 6 * day }), { start: 3 * day - 0.3 * day, end: 3 * day });
  t.is(lifetimeRenewalWindow({ notBefore: 0, notAfter: shortLivedMs }).end, 5 * day);
});

test('a random instant inside the window: both ends reachable, never outside', (t) => {
  const window = { start: 1000, end: 2000 };
  t.is(
    pickInstant(window, () => 0),
    1000,
  );
  t.is(
    pickInstant(window, () => 0.999_999),
    1999,
  );
  for (let i = 0; i < 1000; i++) {
    const at = pickInstant(window);
    t.true(at >= 1000 && at < 2000);
  }
});

test('plan from a real certificate: lifetime rule without ARI, jittered inside its window', async (t) => {
  const notBefore = new Date('2025-01-01T00:00:00Z');
  const { certPem } = await testCertificate({ notBefore, notAfter: new Date('2025-01-07T00:00:00Z') });
  const facts = readCertificateFacts(certPem);
  const early = planRenewal({ facts }, () => 0);
  const late = planRenewal({ facts }, () => 0.999_999);
  t.deepEqual(early, { dueAt: Date.parse('2025-01-04T00:00:00Z') - 0.3 * day, basis: 'lifetime', explanationUrl: undefined });
  t.true(late.dueAt < Date.parse('2025-01-04T00:00:00Z') && late.dueAt > Date.parse('2025-01-04T00:00:00Z') - 1000, String(late.dueAt));
  t.is(
    planRenewal({ facts, previous: late }, () => 0),
    late,
    'an existing lifetime plan is kept',
  );
});

test('plan with ARI: an instant inside the window; kept while the window still holds it; ARI overrides the lifetime plan', (t) => {
  const facts = { notBefore: 0, notAfter: 90 * day };
  const window = { start: 50 * day, end: 51 * day };
  const lifetime: RenewalPlan = { dueAt: 58 * day, basis: 'lifetime', explanationUrl: undefined };
  const first = planRenewal({ facts, ari: { window, explanationUrl: 'https://ca.example/why' }, previous: lifetime }, () => 0.5);
  t.deepEqual(first, { dueAt: 50.5 * day, basis: 'ari', explanationUrl: 'https://ca.example/why' });
  const widened = planRenewal({ facts, ari: { window: { start: 49 * day, end: 52 * day }, explanationUrl: undefined }, previous: first }, () => 0);
  t.is(widened.dueAt, 50.5 * day, 'still inside: not picked again');
  // The CA moved the window (for example after a revocation): pick again inside the new one.
  const moved = planRenewal(
    { facts, ari: { window: { start: 10 * day, end: 10 * day + hour }, explanationUrl: 'https://ca.example/incident' }, previous: first },
    () => 0,
  );
  t.deepEqual(moved, { dueAt: 10 * day, basis: 'ari', explanationUrl: 'https://ca.example/incident' });
});

test('plan with ARI: an earlier ARI instant on either edge of the window is kept; one before or after it, or a lifetime instant inside it, is not', (t) => {
  const facts = { notBefore: 0, notAfter: 90 * day };
  const ari = { window: { start: 50 * day, end: 51 * day }, explanationUrl: undefined };
  const plan = (previous: RenewalPlan | undefined) => planRenewal({ facts, ari, previous }, () => 0.5).dueAt;
  const earlier = (dueAt: number, basis: RenewalPlan['basis'] = 'ari'): RenewalPlan => ({ dueAt, basis, explanationUrl: undefined });
  t.is(plan(undefined), 50.5 * day, 'the first answer');
  t.is(plan(earlier(50 * day)), 50 * day);
  t.is(plan(earlier(51 * day)), 51 * day);
  t.is(plan(earlier(50 * day - 1)), 50.5 * day, 'the window moved past it');
  t.is(plan(earlier(51 * day + 1)), 50.5 * day, 'the window moved before it');
  // The lifetime rule picked its instant in its own window: the ARI instant is drawn uniformly in the CA's.
  t.is(plan(earlier(50.2 * day, 'lifetime')), 50.5 * day, 'a lifetime plan is replaced even when its instant lies in the window');
});

test('expiry notice: 7 days before expiry (a quarter of the lifetime for short-lived certificates), once per certificate', (t) => {
  const expires = '2025-03-10T00:00:00.000Z';
  const issued = '2024-12-10T00:00:00.000Z';
  t.is(expiryNoticeAt(issued, expires, null), Date.parse('2025-03-03T00:00:00Z'));
  t.is(expiryNoticeAt(issued, expires, '2024-12-10T00:00:00.000Z'), Date.parse('2025-03-03T00:00:00Z'), 'sent for an older certificate');
  t.is(expiryNoticeAt(issued, expires, expires), undefined, 'sent for this one');
  t.is(expiryNoticeAt(null, null, null), undefined, 'no certificate');
  t.is(expiryNoticeAt('2025-03-04T00:00:00.000Z', expires, null), Date.parse('2025-03-08T12:00:00Z'), 'a 6-day certificate: a day and a half before');
  t.is(expiryNoticeAt(null, expires, null), Date.parse('2025-03-03T00:00:00Z'), 'issuance unknown: 7 days before');
  t.is(expiryNoticeAt(null, null, expires), undefined, 'no certificate, a notice sent for an earlier one');
});

/** A ManualClock that records how far ahead each timer was set. */
class RecordingClock extends ManualClock implements Clock {
  readonly delays: number[] = [];
  override every(ms: number, tick: () => void): () => void {
    this.delays.push(ms);
    return super.every(ms, tick);
  }
}

test('scheduler: keys fire at their instant, in one batch when due together, at most 2 hours between checks', (t) => {
  const clock = new RecordingClock(0);
  const fired: [number, string[]][] = [];
  const scheduler = new DueScheduler<string>(clock, (keys) => fired.push([clock.now(), keys.sort()]));
  scheduler.start();
  scheduler.set('b', 5 * hour);
  scheduler.set('a', 30 * 60_000);
  scheduler.set('c', 5 * hour);
  scheduler.set('d', 10 * day);
  clock.advance(30 * 60_000 - 1);
  t.deepEqual(fired, []);
  clock.advance(1);
  t.deepEqual(fired, [[30 * 60_000, ['a']]]);
  clock.advance(5 * hour);
  t.deepEqual(fired[1], [5 * hour, ['b', 'c']]);
  t.is(scheduler.size, 1);
  clock.advance(10 * day);
  t.deepEqual(fired[2], [10 * day, ['d']]);
  t.true(
    clock.delays.every((delay) => delay <= maxRenewalCheckMs),
    'never sleeps past 2 hours',
  );
  t.true(clock.delays.length >= (10 * day) / maxRenewalCheckMs, 'woke at least every 2 hours while waiting for d');
  scheduler.stop();
});

test('scheduler: a new earlier key re-arms; a key due in the past fires at once; deleted and stopped keys do not fire', (t) => {
  const clock = new ManualClock(1000 * day);
  const fired: string[] = [];
  const scheduler = new DueScheduler<string>(clock, (keys) => fired.push(...keys));
  scheduler.start();
  scheduler.set('late', clock.now() + hour);
  scheduler.set('early', clock.now() + 60_000);
  scheduler.set('gone', clock.now() + 30_000);
  scheduler.delete('gone');
  clock.advance(60_000);
  t.deepEqual(fired, ['early']);
  scheduler.set('overdue', clock.now() - day);
  clock.advance(0);
  t.deepEqual(fired, ['early', 'overdue']);
  scheduler.set('late', clock.now() + 2 * hour);
  t.is(scheduler.dueAt('late'), clock.now() + 2 * hour, 'set replaces the earlier instant');
  scheduler.stop();
  clock.advance(3 * hour);
  t.deepEqual(fired, ['early', 'overdue']);
  t.deepEqual(scheduler.takeDue(), ['late'], 'the owner can still take what is due');
});

test('scheduler: nothing fires before start nor after stop, keys set then included; start fires what came due meanwhile', (t) => {
  const clock = new ManualClock(0);
  const fired: [number, string[]][] = [];
  const scheduler = new DueScheduler<string>(clock, (keys) => fired.push([clock.now(), keys]));
  scheduler.set('early', hour);
  clock.advance(3 * hour);
  t.deepEqual(fired, [], 'not started');
  scheduler.start();
  clock.advance(0);
  t.deepEqual(fired, [[3 * hour, ['early']]], 'overdue at start');
  scheduler.set('armed', 4 * hour);
  scheduler.stop();
  scheduler.set('after-stop', 5 * hour);
  clock.advance(3 * hour);
  t.deepEqual(fired, [[3 * hour, ['early']]], 'stopped: neither the armed key nor one set after stop');
  t.is(scheduler.size, 2);
  scheduler.start();
  clock.advance(0);
  t.deepEqual(fired[1], [6 * hour, ['armed', 'after-stop']]);
});

test('renewal of a 6-day certificate on a fake clock: not before its instant, at it, with the lifetime rule', async (t) => {
  const issued = Date.parse('2025-05-01T00:00:00Z');
  const { certPem } = await testCertificate({ notBefore: new Date(issued), notAfter: new Date(issued + 6 * day) });
  const clock = new ManualClock(issued);
  const due: string[] = [];
  const scheduler = new DueScheduler<string>(clock, (keys) => due.push(...keys));
  scheduler.start();
  const plan = planRenewal({ facts: readCertificateFacts(certPem) }, () => 0.5);
  scheduler.set('short.example.com', plan.dueAt);
  t.true(plan.dueAt > issued + 2.5 * day && plan.dueAt <= issued + 3 * day);
  clock.advance(plan.dueAt - issued - 1);
  t.deepEqual(due, []);
  clock.advance(1);
  t.deepEqual(due, ['short.example.com']);
  scheduler.stop();
});
