import test from 'ava';
import { ClientSlots, tooManyFromClient } from '../../src/http/client-slots.js';
import { addressKey } from '../../src/http/rate-limit.js';

test('a client address holds at most its allowance of requests at once; an IPv6 /64 counts as one client', (t) => {
  const slots = new ClientSlots(2);
  const first = slots.take(addressKey('2001:db8:1:2::10'));
  const second = slots.take(addressKey('2001:db8:1:2:ffff::99'));
  t.false(first.full);
  t.false(second.full);
  const third = slots.take(addressKey('2001:db8:1:2::10'));
  t.true(third.full, 'a third request from the same /64 is over the allowance');
  t.false(slots.take(addressKey('2001:db8:1:3::10')).full, 'another /64 is another client');
  t.false(slots.take(addressKey('192.0.2.1')).full);
  t.false(slots.take(addressKey('::ffff:192.0.2.2')).full);

  // A refused request releases what it took, and a release counts once however often it is called.
  third.release();
  first.release();
  first.release();
  t.false(slots.take(addressKey('2001:db8:1:2::10')).full);
  t.true(slots.take(addressKey('2001:db8:1:2::10')).full);
});

test('an address is held in memory only while it has a request in flight', (t) => {
  const slots = new ClientSlots(1);
  const first = slots.take('192.0.2.1');
  const refused = slots.take('192.0.2.1');
  const other = slots.take('192.0.2.2');
  t.is(slots.size, 2);
  refused.release();
  first.release();
  t.is(slots.size, 1, 'its last request answered, the address is forgotten');
  other.release();
  other.release();
  t.is(slots.size, 0);
  t.false(slots.take('192.0.2.1').full, 'a forgotten address starts again with its whole allowance');
});

test('the refusal of a client over its allowance is a 429 naming the allowance, with Retry-After', (t) => {
  const refusal = tooManyFromClient(8);
  t.is(refusal.code, 'ERR_RATE_LIMITED');
  t.is(refusal.message, 'too many requests at once from this address: at most 8 are answered together; retry once some have ended');
  t.deepEqual(refusal.headers, { 'Retry-After': '1' });
});
