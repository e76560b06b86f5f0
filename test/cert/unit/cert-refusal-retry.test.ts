// A refusal's Retry-After (the CA's, or a DNS provider's carried as
// OutpostError.retryAfterMs) sets the next attempt, up to the CA's horizon of 7 days, not a day; the
// domain's view says when and why.
import test from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import { OutpostError } from '../../../src/errors.js';
import { nextAttempt } from '../../../actors/cert/domains/backoff.js';
import { maxRefusalRetryAfterMs } from '../../../actors/cert/renewal/retry-after.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { day, startBook } from '../helpers/domain-book.js';
import { certErrors } from '../../../actors/cert/error-codes.js';

const now = Date.UTC(2026, 0, 1);

test('a Retry-After of days sets the next attempt that far, up to 7 days', (t) => {
  t.deepEqual(
    nextAttempt(1, now, 3 * day, undefined, () => 0),
    { at: now + 3 * day, reason: 'retry_after' },
  );
  t.deepEqual(
    nextAttempt(1, now, 30 * day, undefined, () => 0),
    { at: now + maxRefusalRetryAfterMs, reason: 'retry_after' },
  );
  t.is(maxRefusalRetryAfterMs, 7 * day);
});

test("a DNS provider 429 and a CA rateLimited refusal each set the domain's next attempt, shown with why", async (t) => {
  const clock = new ManualClock(now);
  const harness = await startBook(t, { dataDir: await certDataDir(t), clock, lifetimeMs: 90 * day });
  harness.issuer.failures.push(new OutpostError(certErrors.ERR_DNS_PROVIDER, 'cloudflare answered 429', { retryAfterMs: 300_000 }));
  await harness.book.add({ name: 'app', target: '203.0.113.5' });
  const provider = await harness.until('app', (view) => view.status === 'error');
  t.is(provider.next_attempt_at, new Date(now + 300_000).toISOString(), "the provider's 5 minutes, not the 2-minute backoff");
  t.is(provider.waiting_for, 'retry_after');

  harness.issuer.failures.push(new OutpostError(certErrors.ERR_ACME_ORDER, 'acme: too many certificates', { retryAfterMs: 4 * day }));
  const refused = harness.nextPublished('app', (view) => view.status === 'error' && view.error?.includes('too many') === true);
  clock.advance(300_000);
  const ca = await refused;
  t.is(ca.next_attempt_at, new Date(now + 300_000 + 4 * day).toISOString(), "the CA's 4 days, not capped at one");
  t.is(ca.waiting_for, 'retry_after');
  t.is((await harness.storedRecord('app')).retry.waiting_for, 'retry_after');
});
