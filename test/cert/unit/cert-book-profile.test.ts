// A domain's ACME profile in the book: taken on add only when the CA lists it (400 naming those it
// does), kept in the domain's file, sent with its first order and with every renewal; changed for the
// next order without a new certificate; a CA that cannot be asked does not block the add.
import test from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import { OutpostError } from '../../../src/errors.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { day, hour, startBook } from '../helpers/domain-book.js';

const start = Date.UTC(2026, 0, 1);
const letsEncrypt = { classic: 'the usual', tlsserver: 'no CN', shortlived: '160 hours' };

test('a profile the CA lists is ordered first and at every renewal; the file keeps it', async (t) => {
  const clock = new ManualClock(start);
  const harness = await startBook(t, { dataDir: await certDataDir(t), clock, lifetimeMs: 6 * day + 16 * hour });
  harness.issuer.offered = letsEncrypt;
  const added = await harness.book.add({ name: 'app', target: '203.0.113.5', profile: 'shortlived' });
  t.is(added.profile, 'shortlived');
  await harness.until('app', (view) => view.status === 'issued');
  const stored = await harness.storedRecord('app');
  t.is(stored.profile, 'shortlived');
  clock.advance(Date.parse(stored.renewal.due_at ?? '') - clock.now() + 2 * hour);
  await harness.until('app', (view) => view.status === 'issued' && view.issued_at !== stored.issued_at);
  t.deepEqual(harness.issuer.orders, ['app.example.com', 'app.example.com']);
  t.deepEqual(harness.issuer.profilesOrdered, ['shortlived', 'shortlived'], 'the renewal orders the same profile');
});

test('a profile the CA does not list, or any when it lists none, is refused with 400 and nothing is added', async (t) => {
  const harness = await startBook(t, { dataDir: await certDataDir(t), clock: new ManualClock(start), lifetimeMs: 90 * day });
  harness.issuer.offered = letsEncrypt;
  const unknown = await t.throwsAsync(harness.book.add({ name: 'app', target: '203.0.113.5', profile: 'forever' }), { instanceOf: OutpostError });
  t.is(unknown?.code, 'ERR_BAD_REQUEST');
  t.is(unknown?.message, 'the CA does not offer profile "forever"; it offers classic, shortlived and tlsserver');
  t.deepEqual(harness.book.list(), []);
  harness.issuer.offered = null;
  await t.throwsAsync(harness.book.add({ name: 'app', target: '203.0.113.5', profile: 'classic' }), {
    message: 'the CA offers no profiles (its directory has no meta.profiles), so profile "classic" cannot be chosen',
  });
  const plain = await harness.book.add({ name: 'app', target: '203.0.113.5' });
  t.is(plain.profile, null);
});

test('a changed profile is kept for the next order; the certificate served stays', async (t) => {
  const harness = await startBook(t, { dataDir: await certDataDir(t), clock: new ManualClock(start), lifetimeMs: 90 * day });
  harness.issuer.offered = letsEncrypt;
  await harness.book.add({ name: 'app', target: '203.0.113.5' });
  const issued = await harness.until('app', (view) => view.status === 'issued');
  const changed = await harness.book.setProfile('app', 'tlsserver');
  t.like(changed, { profile: 'tlsserver', status: 'issued', issued_at: issued.issued_at });
  t.is((await harness.storedRecord('app')).profile, 'tlsserver');
  await t.throwsAsync(harness.book.setProfile('app', 'forever'), { message: /it offers classic, shortlived and tlsserver/ });
  t.is((await harness.book.setProfile('app', null)).profile, null);
  t.deepEqual(harness.issuer.profilesOrdered, [undefined]);
});

test('a CA that cannot be asked does not block the add: the order checks the profile', async (t) => {
  const harness = await startBook(t, { dataDir: await certDataDir(t), clock: new ManualClock(start), lifetimeMs: 90 * day });
  harness.issuer.profiles = () => Promise.reject(new Error('cannot reach https://ca.example.net'));
  const added = await harness.book.add({ name: 'app', target: '203.0.113.5', profile: 'shortlived' });
  t.is(added.profile, 'shortlived');
  t.true(harness.logged.some((line) => line.startsWith("warn: the CA's profiles could not be read to check profile shortlived")));
});
