// A CA's Retry-After reaches the domain's backoff although the refusal crosses threads (acme actor ->
// domains actor) as data: the wire form of an error carries it.
import test from 'ava';
import { AcmeOrderError } from '../../../actors/cert/acme/errors.js';
import { ManualClock } from '../../../src/actor/clock.js';
import { OutpostError, toOutpostError } from '../../../src/errors.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { day, hour, startBook } from '../helpers/domain-book.js';

test('the wire form of an error keeps its Retry-After, and drops one that is not a number', (t) => {
  const refusal = new AcmeOrderError('acme: creating the order for app.example.com failed: rateLimited', 3600);
  const wire = refusal.toWire();
  t.is(wire.retryAfterMs, 3_600_000);
  const rebuilt = toOutpostError(structuredClone(wire));
  t.true(rebuilt instanceof OutpostError);
  t.is(rebuilt.retryAfterMs, 3_600_000);
  t.is(rebuilt.message, refusal.message);
  t.is(toOutpostError({ code: 'ERR_ACME_ORDER', message: 'x', retryAfterMs: 'soon' }).retryAfterMs, undefined);
  t.false('retryAfterMs' in new OutpostError('ERR_NOT_FOUND', 'no').toWire());
});

test('a refusal rebuilt from the wire with Retry-After: the next attempt waits that long, not the short backoff', async (t) => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const harness = await startBook(t, { dataDir: await certDataDir(t), clock, lifetimeMs: 90 * day });
  harness.issuer.failures.push(toOutpostError(structuredClone(new AcmeOrderError('acme: creating the order failed: rateLimited', 3 * 3600).toWire())));
  await harness.book.add({ name: 'app', target: '203.0.113.5' });
  const failed = await harness.until('app', (view) => view.status === 'error');
  const waited = Date.parse(failed.next_attempt_at ?? '') - clock.now();
  t.true(waited >= 3 * hour && waited < 3 * hour + 60_000, `next attempt in ${waited} ms`);
  t.regex(failed.error ?? '', /the CA asks to retry after 10800 s/);
});
