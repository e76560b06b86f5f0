// How far certhub follows a Retry-After (read by src/http/retry-after.ts) from a CA's renewalInfo answers
// and refusals. certhub clamps it: a CA asking for a retry within seconds would have
// certhub hammer it. A renewalInfo answer asking for a week would leave a moved window unseen too
// long (a day at most); a refusal's Retry-After is followed up to the CA's own horizon (below).

export const minRetryAfterMs = 60_000;
export const maxRetryAfterMs = 86_400_000;
/**
 * The longest wait a refusal's Retry-After (the CA's, or a DNS provider's) sets: 7 days, the longest
 * window of Let's Encrypt's rate limits (new certificates per registered domain, and per exact set of
 * names, are counted over 7 days), which is also how long its orders live. A longer Retry-After is
 * not believed past it: certhub asks again then, and the CA answers with the wait that is left.
 */
export const maxRefusalRetryAfterMs = 7 * 86_400_000;

/** A renewalInfo Retry-After delay held between a minute and a day. */
export function clampRetryAfter(delayMs: number): number {
  return Math.min(maxRetryAfterMs, Math.max(minRetryAfterMs, delayMs));
}

/** A refusal's Retry-After delay held between a minute and the CA's horizon (7 days). */
export function clampRefusalRetryAfter(delayMs: number): number {
  return Math.min(maxRefusalRetryAfterMs, Math.max(minRetryAfterMs, delayMs));
}
