// The operator's retry (POST /api/admin/domains/<name>/retry): a domain in error starts again at
// once, not at its backoff time; any other state refuses it.
import test from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import { OutpostError } from '../../../src/errors.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { day, startBook } from '../helpers/domain-book.js';

test('a domain in error, retried by the operator, is issued before its backoff time; its failure count stays', async (t) => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const harness = await startBook(t, { dataDir: await certDataDir(t), clock, lifetimeMs: 90 * day });
  harness.issuer.failures.push('acme: the CA is down');
  await harness.book.add({ name: 'app', target: '203.0.113.5' });
  const failed = await harness.until('app', (view) => view.status === 'error');
  t.true(Date.parse(failed.next_attempt_at ?? '') > clock.now(), 'a backoff is planned');

  harness.issuer.hold();
  const issued = harness.nextPublished('app', (view) => view.status === 'issued');
  const retried = await harness.book.retryNow('app');
  t.like(retried, { status: 'pending', next_attempt_at: null });
  t.is((await harness.storedRecord('app')).retry.failures, 1, 'the failure count stays for the next backoff');
  harness.issuer.resume();
  t.is((await issued).status, 'issued', 'issued with the clock still before the planned retry');
  t.is(harness.issuer.orders.length, 2);
});

test('a retry of a domain that is not in error is refused as a conflict, naming its state, and changes nothing', async (t) => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const harness = await startBook(t, { dataDir: await certDataDir(t), clock, lifetimeMs: 90 * day });
  await harness.book.add({ name: 'app', target: '203.0.113.5' });
  await harness.until('app', (view) => view.status === 'issued');
  const refusal = await t.throwsAsync(harness.book.retryNow('app'), { instanceOf: OutpostError });
  t.is(refusal.code, 'ERR_CONFLICT');
  t.regex(refusal.message, /app\.example\.com is issued: only a domain in error can be retried/);
  t.is(harness.issuer.orders.length, 1);
  await t.throwsAsync(harness.book.retryNow('nothere'), { message: /no domain nothere\.example\.com/ });
});
