// Renewal by the CA's renewal information (ARI, RFC 9773), driven by the domains actor's book on a
// fake clock with an issuer that answers renewalInfo: the renewal falls inside the CA's window, the
// window is asked again when the answer says, a window moved earlier is followed, and the renewal
// order names the certificate it replaces.
import test from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import type { RenewalInfoAnswer } from '../../../actors/cert/acme/protocol.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { day, hour, startBook } from '../helpers/domain-book.js';

const start = Date.UTC(2026, 0, 1);

test('ARI: renewed inside the CA window, asked again as told, an earlier window followed, replaces sent', async (t) => {
  const clock = new ManualClock(start);
  const harness = await startBook(t, { dataDir: await certDataDir(t), clock, lifetimeMs: 90 * day });
  let answer: RenewalInfoAnswer = {
    ok: true,
    window: { start: start + 40 * day, end: start + 41 * day },
    explanationUrl: 'https://ca.test/why',
    nextCheckAt: start + 6 * hour,
  };
  harness.issuer.renewalWindow = () => answer;

  const added = await harness.book.add({ name: 'app', target: '203.0.113.5' });
  await harness.until('app', (view) => view.status === 'issued' && harness.issuer.renewalInfoAsked.length === 1);
  const first = await harness.storedRecord('app');
  t.is(first.renewal.basis, 'ari');
  t.is(first.renewal.ari_explanation_url, 'https://ca.test/why');
  t.not(first.renewal.cert_id, null);
  const dueAt = Date.parse(first.renewal.due_at ?? '');
  t.true(dueAt >= answer.window.start && dueAt < answer.window.end, 'due inside the CA window');
  t.deepEqual(harness.issuer.renewalInfoAsked, [first.renewal.cert_id]);

  answer = { ...answer, nextCheckAt: start + 12 * hour };
  const second = harness.nextPublished('app', () => harness.issuer.renewalInfoAsked.length === 2);
  clock.advance(6 * hour);
  await second;
  t.deepEqual(harness.issuer.orders, ['app.example.com'], 'an ARI check is not a renewal');
  t.is((await harness.storedRecord('app')).renewal.due_at, first.renewal.due_at, 'an instant still inside the window is kept');

  // The CA moves the window to now (e.g. the certificate is to be revoked): the next check follows it.
  answer = { ok: true, window: { start: start + 12 * hour, end: start + 13 * hour }, explanationUrl: undefined, nextCheckAt: start + day };
  const third = harness.nextPublished('app', () => harness.issuer.renewalInfoAsked.length === 3);
  clock.advance(6 * hour);
  await third;
  const moved = Date.parse((await harness.storedRecord('app')).renewal.due_at ?? '');
  t.true(moved >= answer.window.start && moved < answer.window.end, 'the renewal follows the window moved earlier');
  clock.advance(hour);
  const renewed = await harness.until('app', (view) => view.status === 'issued' && harness.issuer.orders.length === 2);
  t.is(renewed.token, added.token);
  t.deepEqual(harness.issuer.replaced, [undefined, first.renewal.cert_id ?? ''], 'the renewal order replaces the old certificate');
  const next = await harness.storedRecord('app');
  t.not(next.renewal.cert_id, first.renewal.cert_id);
});
