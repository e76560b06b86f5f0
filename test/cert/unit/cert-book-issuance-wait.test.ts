// A finalized order the CA is still issuing (ERR_ACME_PROCESSING) is no failure of the domain: no
// failure counted, no webhook notice, and the order is tried again when the CA's Retry-After says.
import test from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import { IssuanceProcessingError } from '../../../actors/cert/acme/issuance-wait.js';
import type { DomainNotice } from '../../../actors/cert/domains/notices.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { day, startBook } from '../helpers/domain-book.js';

test('an order still processing waits for the CA without a counted failure or a notice, then is resumed', async (t) => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const notices: DomainNotice[] = [];
  const harness = await startBook(t, { dataDir: await certDataDir(t), clock, lifetimeMs: 90 * day, notify: (notice) => notices.push(notice) });
  harness.issuer.failures.push(new IssuanceProcessingError('acme: the CA is still issuing the order', 30));
  await harness.book.add({ name: 'app', target: '203.0.113.5' });
  const waiting = await harness.until('app', (view) => view.waiting_for === 'issuance');
  t.like(waiting, { status: 'pending', next_attempt_at: new Date(clock.now() + 30_000).toISOString() });
  t.is((await harness.storedRecord('app')).retry.failures, 0, 'no failure counted');
  t.deepEqual(notices, [], 'no webhook notice');
  t.is(harness.issuer.orders.length, 1);

  const issued = harness.nextPublished('app', (view) => view.status === 'issued');
  clock.advance(30_000);
  t.is((await issued).status, 'issued');
  t.is(harness.issuer.orders.length, 2, 'the order was tried again at the time the CA asked');
});
