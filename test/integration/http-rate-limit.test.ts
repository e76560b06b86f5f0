import test from 'ava';
import { safeEqual } from '../../src/crypto/constant-time.js';
import { RateLimiter } from '../../src/http/rate-limit.js';
import { withServer } from '../helpers/with-server.js';

// Windows of an hour: no token comes back while a test runs, however slow the machine.
const hour = 3_600_000;

test('past its allowance a client gets 429 with Retry-After in whole seconds; other keys are untouched', withServer, ({ router }) => {
  const perClient = new RateLimiter({ limit: 3, windowMs: hour });
  const perKey = new RateLimiter({ limit: 1, windowMs: hour });
  router.get('/limited', (_request, reply) => reply.json(200, { ok: true }), { rateLimit: { limiter: perClient } });
  router.get('/per-key', (_request, reply) => reply.json(200, { ok: true }), { rateLimit: { limiter: perKey, key: (request) => request.headers.get('x-api-key') ?? '' } });
}, async (t, { url }) => {
  for (let index = 0; index < 3; index++) t.is((await fetch(`${url}/limited`)).status, 200);
  const refused = await fetch(`${url}/limited`);
  t.is(refused.status, 429);
  t.is(refused.headers.get('content-type'), 'application/json; charset=utf-8');
  const retryAfter = refused.headers.get('retry-after') ?? '';
  t.regex(retryAfter, /^\d+$/);
  // One request of three comes back every 20 minutes.
  t.true(Number(retryAfter) > 1100 && Number(retryAfter) <= 1200, retryAfter);
  t.deepEqual(await refused.json(), { error: `too many requests; retry in ${retryAfter} s` });
  t.is((await fetch(`${url}/per-key`, { headers: { 'X-Api-Key': 'a' } })).status, 200);
  t.is((await fetch(`${url}/per-key`, { headers: { 'X-Api-Key': 'a' } })).status, 429);
  t.is((await fetch(`${url}/per-key`, { headers: { 'X-Api-Key': 'b' } })).status, 200, 'key b has its own allowance');
});

/** How often the next test's token check ran. */
const tokenChecks = { count: 0 };

test('counting failures only: wrong tokens use up the allowance, right ones do not; a client out of it still passes with the right token and gets 429 for a wrong one', withServer, ({ router }) => {
  const failures = new RateLimiter({ limit: 3, windowMs: hour });
  const bearer = (token: string) => {
    tokenChecks.count++;
    return safeEqual(token, 'right') ? 'operator' : undefined;
  };
  router.group({ auth: { bearer }, rateLimit: { limiter: failures, count: 'failures' } }).get('/api/guarded', (request, reply) => reply.json(200, { who: request.auth }));
}, async (t, { url }) => {
  const call = (token: string) => fetch(`${url}/api/guarded`, { headers: { Authorization: `Bearer ${token}` } });
  for (let index = 0; index < 5; index++) t.is((await call('right')).status, 200);
  for (let index = 0; index < 3; index++) t.is((await call('wrong')).status, 401);
  const checksBefore = tokenChecks.count;
  t.is((await call('right')).status, 200, 'valid credentials always pass (issue 23: one proxy full of guessers must not lock the operator out)');
  const refused = await call('wrong');
  t.is(refused.status, 429, 'three failures used the allowance up');
  t.regex(refused.headers.get('retry-after') ?? '', /^\d+$/);
  t.is(tokenChecks.count, checksBefore + 2, 'both tokens were checked');
  t.is((await call('wrong')).status, 429, 'answering 429 gave nothing back');
});

test('a group rate limit covers each of its routes together', withServer, ({ router }) => {
  const shared = new RateLimiter({ limit: 2, windowMs: hour });
  router.group({ rateLimit: { limiter: shared } }).get('/a', (_request, reply) => reply.text(200, 'a')).post('/b', (_request, reply) => reply.text(200, 'b'));
}, async (t, { url }) => {
  t.is((await fetch(`${url}/a`)).status, 200);
  t.is((await fetch(`${url}/b`, { method: 'POST' })).status, 200);
  t.is((await fetch(`${url}/a`)).status, 429);
});

test('counting failures only: guesses sent all at once are counted as they are answered', withServer, ({ router }) => {
  const failures = new RateLimiter({ limit: 3, windowMs: hour });
  // The check answers later, as one that looks a session up would: every guess is in flight at once.
  const bearer = async (token: string) => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    return safeEqual(token, 'right') ? 'operator' : undefined;
  };
  router.group({ auth: { bearer }, rateLimit: { limiter: failures, count: 'failures' } }).get('/api/guarded', (_request, reply) => reply.json(200, {}));
}, async (t, { url }) => {
  const statuses = await Promise.all(Array.from({ length: 20 }, () => fetch(`${url}/api/guarded`, { headers: { Authorization: 'Bearer wrong' } }).then((response) => response.status)));
  t.is(statuses.filter((status) => status === 401).length, 3, statuses.join(' '));
  t.is(statuses.filter((status) => status === 429).length, 17);
});
