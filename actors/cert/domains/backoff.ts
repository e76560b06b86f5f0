// Per-domain retry delays after a failure: exponential (2 min, 4, 8, ... up to 6 h), up to a fifth
// earlier at random so that domains that failed together do not retry together, and never sooner
// than a refusal's Retry-After (the CA's or the DNS provider's), which is followed up to 7 days. Starting at 2 minutes keeps a domain that fails every time at about
// five validations in its first hour, Let's Encrypt's limit of failed validations per hostname.
import { clampRefusalRetryAfter } from '../renewal/retry-after.js';

export interface BackoffSettings {
  baseMs: number;
  maxMs: number;
  /** Share of the delay that may be taken off at random. */
  jitter: number;
}

export const defaultBackoff: BackoffSettings = { baseMs: 120_000, maxMs: 6 * 3_600_000, jitter: 0.2 };

/** The delay after `failures` failures in a row (1 for the first). */
export function backoffDelay(failures: number, settings: BackoffSettings = defaultBackoff, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(failures, 1) - 1, 30);
  const delay = Math.min(settings.maxMs, settings.baseMs * 2 ** exponent);
  return Math.round(delay * (1 - settings.jitter * random()));
}

export interface NextAttempt {
  /** Epoch milliseconds. */
  at: number;
  /** Whether the CA's Retry-After or the backoff decided it. */
  reason: 'backoff' | 'retry_after';
}

/** When to try again after the `failures`-th failure in a row at `now`; `retryAfterMs` from the refusal (CA or DNS provider), if any. */
export function nextAttempt(
  failures: number,
  now: number,
  retryAfterMs?: number,
  settings: BackoffSettings = defaultBackoff,
  random: () => number = Math.random,
): NextAttempt {
  const delay = backoffDelay(failures, settings, random);
  if (retryAfterMs === undefined) return { at: now + delay, reason: 'backoff' };
  const asked = clampRefusalRetryAfter(retryAfterMs);
  return asked > delay ? { at: now + asked, reason: 'retry_after' } : { at: now + delay, reason: 'backoff' };
}
