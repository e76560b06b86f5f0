// Retry-After (RFC 9110 §10.2.3) as a CA sends it on renewalInfo answers and refusals: a number of
// seconds or an HTTP date. certhub clamps it: a CA asking for a retry within seconds would have
// certhub hammer it, and one asking for a week would leave a failing renewal unseen too long.

export const minRetryAfterMs = 60_000;
export const maxRetryAfterMs = 86_400_000;

/** The delay the header asks for, in milliseconds (never negative); undefined when absent or unreadable. */
export function parseRetryAfter(header: string | null | undefined, now: number): number | undefined {
  if (header === null || header === undefined) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) || !/[a-z]/i.test(text) ? undefined : Math.max(0, at - now);
}

/** A Retry-After delay held between a minute and a day. */
export function clampRetryAfter(delayMs: number): number {
  return Math.min(maxRetryAfterMs, Math.max(minRetryAfterMs, delayMs));
}
