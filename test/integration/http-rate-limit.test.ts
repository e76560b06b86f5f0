import test from 'ava';
import { safeEqual } from '../../src/crypto/constant-time.js';
import { RateLimiter } from '../../src/http/rate-limit.js';
import { withServer } from '../helpers/with-server.js';

// Windows of an hour: no token comes back while a test runs, however slow the machine.
const hour = 3_600_000;

test(
  'past its allowance a client gets 429 with Retry-After in whole seconds; other keys are untouched',
  withServer,
  ({ router }) => {
    const perClient = new RateLimiter({ limit: 3, windowMs: hour });
    const perKey = new RateLimiter({ limit: 1, windowMs: hour });
    router.get('/limited', (_request, reply) => reply.json(200, { ok: true }), { rateLimit: { limiter: perClient } });
    router.get('/per-key', (_request, reply) => reply.json(200, { ok: true }), {
      rateLimit: { limiter: perKey, key: (request) => request.headers.get('x-api-key') ?? '' },
    });
  },
  async (t, { url }) => {
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
  },
);

/** How often the next tests' token checks ran. */
const tokenChecks = { refused: 0, recent: 0 };

test(
  'counting failures only: wrong tokens use up the allowance, right ones do not; a client out of it is refused 429 without its token being checked, the right one too',
  withServer,
  ({ router }) => {
    const failures = new RateLimiter({ limit: 3, windowMs: hour });
    const bearer = (token: string) => {
      tokenChecks.refused++;
      return safeEqual(token, 'right') ? 'operator' : undefined;
    };
    router
      .group({ auth: { bearer }, rateLimit: { limiter: failures, count: 'failures' } })
      .get('/api/guarded', (request, reply) => reply.json(200, { who: request.auth }));
  },
  async (t, { url }) => {
    const call = (token: string) => fetch(`${url}/api/guarded`, { headers: { Authorization: `Bearer ${token}` } });
    for (let index = 0; index < 5; index++) t.is((await call('right')).status, 200);
    for (let index = 0; index < 3; index++) t.is((await call('wrong')).status, 401);
    const checksBefore = tokenChecks.refused;
    const refused = await call('right');
    t.is(refused.status, 429, 'three failures used the allowance up');
    t.regex(refused.headers.get('retry-after') ?? '', /^\d+$/);
    t.deepEqual(await refused.json(), { error: `too many requests; retry in ${refused.headers.get('retry-after')} s` });
    t.is((await call('wrong')).status, 429);
    t.is(tokenChecks.refused, checksBefore, 'no token was checked');
  },
);

test(
  'counting failures only: a client that succeeded within the window keeps having its token checked when out of allowance',
  withServer,
  ({ router }) => {
    const failures = new RateLimiter({ limit: 3, windowMs: hour });
    const bearer = (token: string) => {
      tokenChecks.recent++;
      return safeEqual(token, 'right') ? 'operator' : undefined;
    };
    router
      .group({ auth: { bearer }, rateLimit: { limiter: failures, count: 'failures' } })
      .get('/api/guarded', (request, reply) => reply.json(200, { who: request.auth }));
  },
  async (t, { url }) => {
    const call = (token: string) => fetch(`${url}/api/guarded`, { headers: { Authorization: `Bearer ${token}` } });
    t.is((await call('wrong')).status, 401);
    t.is((await call('right')).status, 200);
    for (let index = 0; index < 2; index++) t.is((await call('wrong')).status, 401);
    const checksBefore = tokenChecks.recent;
    t.is((await call('right')).status, 200, 'the right token passes');
    t.is((await call('wrong')).status, 429, 'a wrong one gets 429');
    t.is(tokenChecks.recent, checksBefore + 2, 'both tokens were checked');
  },
);

/** The next test's fake clock and what its rule reported. */
const spell = { now: 0, reports: [] as number[] };

test(
  'counting failures only: the first refusal of a client out of allowance is reported once, until a whole window passes',
  withServer,
  ({ router }) => {
    const failures = new RateLimiter({ limit: 2, windowMs: hour, now: () => spell.now });
    router
      .group({
        auth: { bearer: () => undefined },
        rateLimit: { limiter: failures, count: 'failures', onExhausted: (_request, retryAfterSeconds) => spell.reports.push(retryAfterSeconds) },
      })
      .get('/api/guarded', (_request, reply) => reply.json(200, {}));
  },
  async (t, { url }) => {
    const call = () => fetch(`${url}/api/guarded`, { headers: { Authorization: 'Bearer wrong' } }).then((response) => response.status);
    t.deepEqual([await call(), await call(), await call(), await call(), await call()], [401, 401, 429, 429, 429]);
    t.is(spell.reports.length, 1, 'one report for three refusals');
    // One of two failures comes back each half hour (whole seconds, rounded up from a float).
    t.true(Math.abs((spell.reports[0] ?? 0) - 1800) <= 1, String(spell.reports[0]));
    spell.now += hour;
    t.deepEqual([await call(), await call(), await call()], [401, 401, 429]);
    t.is(spell.reports.length, 2, 'a new spell after a whole window is reported again');
  },
);

test(
  'a group rate limit covers each of its routes together',
  withServer,
  ({ router }) => {
    const shared = new RateLimiter({ limit: 2, windowMs: hour });
    router
      .group({ rateLimit: { limiter: shared } })
      .get('/a', (_request, reply) => reply.text(200, 'a'))
      .post('/b', (_request, reply) => reply.text(200, 'b'));
  },
  async (t, { url }) => {
    t.is((await fetch(`${url}/a`)).status, 200);
    t.is((await fetch(`${url}/b`, { method: 'POST' })).status, 200);
    t.is((await fetch(`${url}/a`)).status, 429);
  },
);

test(
  'counting failures only: guesses sent all at once are counted as they are answered',
  withServer,
  ({ router }) => {
    const failures = new RateLimiter({ limit: 3, windowMs: hour });
    // The check answers later, as one that looks a session up would: every guess is in flight at once.
    const bearer = async (token: string) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return safeEqual(token, 'right') ? 'operator' : undefined;
    };
    router.group({ auth: { bearer }, rateLimit: { limiter: failures, count: 'failures' } }).get('/api/guarded', (_request, reply) => reply.json(200, {}));
  },
  async (t, { url }) => {
    const statuses = await Promise.all(
      Array.from({ length: 20 }, () => fetch(`${url}/api/guarded`, { headers: { Authorization: 'Bearer wrong' } }).then((response) => response.status)),
    );
    t.is(statuses.filter((status) => status === 401).length, 3, statuses.join(' '));
    t.is(statuses.filter((status) => status === 429).length, 17);
  },
);
