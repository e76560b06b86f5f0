// When `--watch` fetches next. After a success: after the interval, but never later than halfway
// to the certificate's expiry (so a renewal on the server is picked up well before the old one
// expires, and ever more often as expiry nears), and never sooner than a minute (or the interval, if
// shorter). After a failure: exponential backoff from 5 s, capped at the interval and at 10 minutes,
// each delay drawn between half and all of its value (so many agents do not retry in step), and never
// sooner than a 429's Retry-After. After a refused token (401), which only a new token mends: from the
// interval, doubling with each refusal in a row, up to six hours (or the interval, if longer), so an
// agent left with an old token asks a few times a day rather than every ten minutes for months.

export interface WatchTiming {
  /** The regular gap between two fetches of a domain. */
  intervalMs: number;
}

export const defaultIntervalMs = 3_600_000;
const minimumGapMs = 60_000;
const backoffBaseMs = 5000;
const backoffMaxMs = 600_000;

/** The delay before the next fetch after one that returned material valid until `expiresAt`. */
export function delayAfterSuccess(now: number, expiresAt: number, { intervalMs }: WatchTiming): number {
  const halfwayToExpiry = (expiresAt - now) / 2;
  return Math.round(Math.min(intervalMs, Math.max(Math.min(minimumGapMs, intervalMs), halfwayToExpiry)));
}

/**
 * The delay after the `failures`-th failure in a row (1 for the first); `random` in [0, 1) picks the
 * point between half and all of the backoff.
 */
export function delayAfterFailure(failures: number, { intervalMs }: WatchTiming, random: () => number, retryAfterMs = 0): number {
  const cap = Math.min(backoffMaxMs, intervalMs);
  const backoff = Math.min(cap, Math.min(backoffBaseMs, intervalMs) * 2 ** Math.min(Math.max(failures - 1, 0), 20));
  return Math.round(Math.max(retryAfterMs, backoff / 2 + (backoff / 2) * random()));
}

/** The longest wait after refused tokens, unless the interval is longer. */
export const refusedTokenMaxMs = 6 * 3_600_000;

/** The delay after the `refusals`-th refused token in a row (1 for the first). */
export function delayAfterRefusal(refusals: number, { intervalMs }: WatchTiming): number {
  const cap = Math.max(refusedTokenMaxMs, intervalMs);
  return Math.min(cap, intervalMs * 2 ** Math.min(Math.max(refusals - 1, 0), 20));
}
