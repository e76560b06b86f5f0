// The one Retry-After reading (RFC 9110 §10.2.3) of every client: delay-seconds or an HTTP-date, bounded.
import test from 'ava';
import { longestRetryAfterMs, retryAfterMs } from '../../src/http/retry-after.js';

const now = Date.parse('2025-02-01T00:00:00Z');

test('delay-seconds, surrounding blanks allowed', (t) => {
  t.is(retryAfterMs('120', now), 120_000);
  t.is(retryAfterMs(' 0 ', now), 0);
});

test('an HTTP-date, as the time left until it; a date in the past means now', (t) => {
  t.is(retryAfterMs('Sat, 01 Feb 2025 00:10:00 GMT', now), 600_000);
  t.is(retryAfterMs('Fri, 31 Jan 2025 00:00:00 GMT', now), 0);
});

test('absent or unreadable is undefined', (t) => {
  for (const header of [null, undefined, '', 'soon', '-5', '12.5', '1e3', 'tomorrow']) t.is(retryAfterMs(header, now), undefined, String(header));
});

test('a wait past what a timer can hold is held at that bound', (t) => {
  t.is(retryAfterMs('99999999999999999999', now), longestRetryAfterMs);
  t.is(retryAfterMs('Fri, 01 Jan 2100 00:00:00 GMT', now), longestRetryAfterMs);
});

test('the longest wait is one a timer can hold: a longer setTimeout would fire at once', async (t) => {
  let fired = false;
  const timer = setTimeout(
    () => {
      fired = true;
    },
    retryAfterMs('99999999999999999999', now),
  );
  await new Promise((resolve) => setTimeout(resolve, 50));
  clearTimeout(timer);
  t.false(fired);
});
