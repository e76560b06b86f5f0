// When --watch fetches next: the interval, sooner as expiry nears; backoff with jitter after failures.
import test from 'ava';
import { delayAfterFailure, delayAfterRefusal, delayAfterSuccess, refusedTokenMaxMs } from '../../../actors/proxy/client/watch-schedule.js';

const hour = 3_600_000;
const day = 24 * hour;

test('after a success: the interval while expiry is far, halfway to expiry when nearer, never below a minute', (t) => {
  const now = 0;
  t.is(delayAfterSuccess(now, 60 * day, { intervalMs: hour }), hour);
  t.is(delayAfterSuccess(now, hour, { intervalMs: hour }), hour / 2);
  t.is(delayAfterSuccess(now, 10_000, { intervalMs: hour }), 60_000, 'a minute at least, even at the edge of expiry');
  t.is(delayAfterSuccess(now, -day, { intervalMs: hour }), 60_000, 'an expired certificate on disk is refetched every minute');
  t.is(delayAfterSuccess(now, 60 * day, { intervalMs: 2000 }), 2000, 'an interval shorter than a minute is kept');
});

test('after failures: doubling from 5 s, capped at the interval and at 10 min, jittered between half and all', (t) => {
  const timing = { intervalMs: hour };
  t.is(
    delayAfterFailure(1, timing, () => 0.999999),
    5000,
  );
  t.is(
    delayAfterFailure(1, timing, () => 0),
    2500,
  );
  t.is(
    delayAfterFailure(3, timing, () => 0.999999),
    20_000,
  );
  t.is(
    delayAfterFailure(30, timing, () => 0.999999),
    600_000,
  );
  t.is(
    delayAfterFailure(30, { intervalMs: 2000 }, () => 0.999999),
    2000,
    'never longer than the interval',
  );
  t.is(
    delayAfterFailure(30, { intervalMs: 2000 }, () => 0),
    1000,
  );
});

test('a Retry-After is waited in full, jitter or not', (t) => {
  t.is(
    delayAfterFailure(1, { intervalMs: hour }, () => 0, 45_000),
    45_000,
  );
  t.is(
    delayAfterFailure(30, { intervalMs: hour }, () => 0.999999, 45_000),
    600_000,
  );
});

test('after refused tokens: from the interval, doubling, up to six hours (or the interval when longer)', (t) => {
  t.deepEqual(
    [1, 2, 3, 4, 5, 40].map((refusals) => delayAfterRefusal(refusals, { intervalMs: hour })),
    [hour, 2 * hour, 4 * hour, refusedTokenMaxMs, refusedTokenMaxMs, refusedTokenMaxMs],
  );
  t.is(refusedTokenMaxMs, 6 * hour);
  t.deepEqual(
    [1, 2, 3].map((refusals) => delayAfterRefusal(refusals, { intervalMs: 1000 })),
    [1000, 2000, 4000],
  );
  t.deepEqual(
    [1, 2].map((refusals) => delayAfterRefusal(refusals, { intervalMs: day })),
    [day, day],
    'an interval beyond six hours is kept',
  );
});
