import { isIP } from 'node:net';
import test from 'ava';
import { addressKey, canonicalAddress, clientAddressKey, forwardedClient, RateLimiter, rateLimited } from '../../src/http/rate-limit.js';

function limiterAt(options: { limit: number; windowMs: number; maxKeys?: number }) {
  const clock = { now: 1_000_000 };
  return { limiter: new RateLimiter({ ...options, now: () => clock.now }), clock };
}

test('a bucket allows its limit at once, then refills evenly over the window', (t) => {
  const { limiter, clock } = limiterAt({ limit: 4, windowMs: 60_000 });
  for (let index = 0; index < 4; index++) t.is(limiter.take('k'), 0);
  t.is(limiter.take('k'), 15, 'one request comes back every 15 s');
  t.is(limiter.retryAfter('k'), 15);
  clock.now += 14_001;
  t.is(limiter.retryAfter('k'), 1, 'whole seconds, rounded up');
  clock.now += 999;
  t.is(limiter.take('k'), 0);
  t.is(limiter.take('k'), 15);
  clock.now += 600_000;
  for (let index = 0; index < 4; index++) t.is(limiter.take('k'), 0, 'a full bucket after a long pause, never more');
  t.true(limiter.take('k') > 0);
});

test('a success is remembered for one window; memory for successes is bounded by maxKeys too', (t) => {
  const { limiter, clock } = limiterAt({ limit: 2, windowMs: 60_000, maxKeys: 2 });
  t.false(limiter.succeededRecently('a'));
  limiter.succeeded('a');
  clock.now += 60_000;
  t.true(limiter.succeededRecently('a'), 'within the window, its end included');
  clock.now += 1;
  t.false(limiter.succeededRecently('a'), 'not after it');
  for (const key of ['a', 'b', 'c']) limiter.succeeded(key);
  t.deepEqual(
    ['a', 'b', 'c'].map((key) => limiter.succeededRecently(key)),
    [false, true, true],
    'the success noted longest ago is forgotten',
  );
});

test('a spell out of allowance is reported once, and again only after a whole window without failures', (t) => {
  const { limiter, clock } = limiterAt({ limit: 2, windowMs: 60_000 });
  t.false(limiter.firstTimeOut('k'), 'an unknown key is not out');
  limiter.take('k');
  t.false(limiter.firstTimeOut('k'), 'a key with a request left is not out');
  limiter.take('k');
  t.deepEqual([limiter.firstTimeOut('k'), limiter.firstTimeOut('k')], [true, false]);
  clock.now += 30_000;
  limiter.take('k');
  t.false(limiter.firstTimeOut('k'), 'half a window gave one back, and it was used: the same spell');
  clock.now += 60_000;
  limiter.take('k');
  limiter.take('k');
  t.true(limiter.firstTimeOut('k'), 'a whole window later, a new spell');
});

test('asking does not take, and an unknown key costs no memory', (t) => {
  const { limiter } = limiterAt({ limit: 1, windowMs: 1000 });
  t.is(limiter.retryAfter('new'), 0);
  t.is(limiter.size, 0);
  t.is(limiter.take('new'), 0);
  t.is(limiter.size, 1);
});

test('memory is bounded: past maxKeys the key used longest ago is forgotten', (t) => {
  const { limiter } = limiterAt({ limit: 1, windowMs: 60_000, maxKeys: 3 });
  for (const key of ['a', 'b', 'c']) limiter.take(key);
  t.true(limiter.take('a') > 0, 'a is out of requests and now the most recently used');
  limiter.take('d');
  t.is(limiter.size, 3);
  t.is(limiter.retryAfter('b'), 0, 'b, used longest ago, was forgotten');
  t.true(limiter.retryAfter('a') > 0);
  t.true(limiter.retryAfter('c') > 0);
  for (let index = 0; index < 10_000; index++) limiter.take(`flood-${index}`);
  t.is(limiter.size, 3);
});

test('clients are keyed by IPv4 address, an IPv4-mapped address as IPv4, IPv6 by its /64', (t) => {
  const key = (remoteAddress: string) => clientAddressKey({ remoteAddress });
  t.is(key('127.0.0.1'), '127.0.0.1');
  t.is(key('0000:0000:0000:0000:0000:ffff:7f00:0001'), '127.0.0.1');
  t.is(key('0000:0000:0000:0000:0000:ffff:c0a8:01fe'), '192.168.1.254');
  t.is(key('2001:0db8:0001:0002:0000:0000:0000:0001'), '2001:0db8:0001:0002::/64');
  t.is(key('2001:0db8:0001:0002:abcd:0000:0000:0009'), key('2001:0db8:0001:0002:0000:0000:0000:0001'));
});

test('a limit must allow something over some time', (t) => {
  t.throws(() => new RateLimiter({ limit: 0, windowMs: 1000 }), { instanceOf: RangeError, message: 'a rate limit allows at least one request' });
  t.throws(() => new RateLimiter({ limit: 1.5, windowMs: 1000 }), { instanceOf: RangeError, message: 'a rate limit allows at least one request' });
  t.throws(() => new RateLimiter({ limit: 1, windowMs: 0 }), { instanceOf: RangeError, message: 'a rate limit window must be longer than 0 ms' });
});

test('a refund gives back one request, never past the limit, and never for a key forgotten', (t) => {
  const { limiter } = limiterAt({ limit: 2, windowMs: 60_000, maxKeys: 1 });
  limiter.take('a');
  limiter.take('a');
  t.true(limiter.retryAfter('a') > 0);
  limiter.refund('a');
  t.is(limiter.take('a'), 0);
  limiter.refund('a');
  limiter.refund('a');
  limiter.refund('a');
  t.is(limiter.take('a'), 0);
  t.is(limiter.take('a'), 0);
  t.true(limiter.take('a') > 0, 'refunds filled the bucket to its limit, no further');
  limiter.refund('unknown');
  t.is(limiter.size, 1);
});

test('a refund gives back one request, not the whole bucket', (t) => {
  const { limiter } = limiterAt({ limit: 3, windowMs: 60_000 });
  for (let index = 0; index < 3; index++) limiter.take('a');
  limiter.refund('a');
  t.is(limiter.take('a'), 0);
  t.true(limiter.take('a') > 0);
});

test('an IPv6 address has one canonical text however it is written: eight groups of four lower-case digits', (t) => {
  const zeros = '0000:0000:0000:0000';
  t.is(canonicalAddress('::'), `${zeros}:${zeros}`);
  t.is(canonicalAddress('::1'), `${zeros}:0000:0000:0000:0001`);
  t.is(canonicalAddress('fe80::'), `fe80:0000:0000:0000:${zeros}`);
  t.is(canonicalAddress('2001:db8::1'), '2001:0db8:0000:0000:0000:0000:0000:0001');
  t.is(canonicalAddress('2001:DB8::AB:CD'), '2001:0db8:0000:0000:0000:0000:00ab:00cd');
  t.is(canonicalAddress('2001:db8:0:0:1:0:0:1'), '2001:0db8:0000:0000:0001:0000:0000:0001');
  t.is(canonicalAddress('2001:0db8:0000:0000:0000:0000:0000:0001'), canonicalAddress('2001:db8::1'));
  t.is(canonicalAddress('198.51.100.7'), '198.51.100.7');
  t.is(isIP(canonicalAddress('64:ff9b:0:0:0:0:192.0.2.1')), 6, 'written in full with an IPv4 tail, it stays an address');
});

test('an IPv4-mapped address is its IPv4 address, in the dotted form as in the hexadecimal one', (t) => {
  t.is(canonicalAddress('::ffff:192.168.10.254'), '192.168.10.254');
  t.is(canonicalAddress('::FFFF:192.0.2.1'), '192.0.2.1');
  t.is(canonicalAddress('0000:0000:0000:0000:0000:ffff:c0a8:0afe'), '192.168.10.254');
  t.is(addressKey('::ffff:203.0.113.9'), '203.0.113.9');
  t.is(addressKey('2001:db8::ffff:192.0.2.1'), '2001:0db8:0000:0000::/64', 'an IPv4 address in the last bits of another /64 is not mapped');
  t.is(addressKey('2000:0:0:0:0:ffff:c000:201'), '2000:0000:0000:0000::/64', 'nor is an address whose first group ends in zeros');
});

test('behind a trusted proxy the client is the nearest X-Forwarded-For hop that is not a proxy; from anyone else the header is ignored', (t) => {
  const trusted = new Set(['10.0.0.1', '10.0.0.2'].map(canonicalAddress));
  const request = (remoteAddress: string, forwarded?: string) => ({
    remoteAddress,
    headers: new Map(forwarded === undefined ? [] : [['x-forwarded-for', forwarded]]),
  });
  t.is(forwardedClient(request('10.0.0.1', '203.0.113.7'), trusted), '203.0.113.7');
  t.is(
    forwardedClient(request('0000:0000:0000:0000:0000:ffff:0a00:0001', '198.51.100.1, 203.0.113.7, 10.0.0.2'), trusted),
    '203.0.113.7',
    'a forged left part and a second proxy are passed over',
  );
  t.is(forwardedClient(request('10.0.0.1', '2001:db8::7'), trusted), '2001:0db8:0000:0000:0000:0000:0000:0007');
  t.is(forwardedClient(request('192.0.2.9', '203.0.113.7'), trusted), '192.0.2.9', 'an untrusted peer says nothing about anyone');
  t.is(forwardedClient(request('10.0.0.1'), trusted), '10.0.0.1', 'no header: the proxy itself');
  t.is(forwardedClient(request('10.0.0.1', 'not-an-address'), trusted), '10.0.0.1', 'garbage: the proxy itself');
  for (const hop of ['1:2:3:4:5:6:7:8::9', '::1:2:3:4:5:6:7:8', '2001:db8:1:2', '::ffff:192.0.2.1x', ''])
    t.is(forwardedClient(request('10.0.0.1', `203.0.113.7, ${hop}`), trusted), '10.0.0.1', `a hop that is no IP address (${hop}): the proxy itself`);
  t.is(forwardedClient(request('10.0.0.1', '203.0.113.7, , 10.0.0.2'), trusted), '10.0.0.1', 'an empty hop ends the trusted part');
  t.is(forwardedClient(request('10.0.0.1', '::ffff:10.0.0.2, 2001:DB8::AB:CD'), trusted), '2001:0db8:0000:0000:0000:0000:00ab:00cd');
  t.is(forwardedClient(request('10.0.0.1', '198.51.100.1, ::ffff:10.0.0.2'), trusted), '198.51.100.1', 'a proxy written IPv4-mapped is still the proxy');
});

test('the refusal of a request over its allowance is a 429 with the wait in whole seconds, in its message and in Retry-After', (t) => {
  const refusal = rateLimited(7);
  t.is(refusal.code, 'ERR_RATE_LIMITED');
  t.is(refusal.message, 'too many requests; retry in 7 s');
  t.deepEqual(refusal.headers, { 'Retry-After': '7' });
});
