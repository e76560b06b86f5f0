// Retry-After (RFC 9110 §10.2.3), as every client in outpost reads it: from a CA, a DNS provider's
// API or certhub. One reading, so that a header means the same wait wherever it arrives.

/**
 * The longest wait the header can ask for: a timer cannot wait longer (setTimeout's bound, about 24.8
 * days), and a larger figure would otherwise overflow into an immediate retry. Callers clamp further.
 */
export const longestRetryAfterMs = 2 ** 31 - 1;

/**
 * The delay the header asks for, in milliseconds from `now`: delay-seconds (digits only) or an
 * HTTP-date, never negative (a date in the past means now), at most `longestRetryAfterMs`; undefined
 * when the header is absent or unreadable (a negative or fractional number, a date without a day name or
 * month, any other text).
 */
export function retryAfterMs(header: string | null | undefined, now = Date.now()): number | undefined {
  if (header === null || header === undefined) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Math.min(longestRetryAfterMs, Number(text) * 1000);
  // Date.parse takes bare numbers and other shapes as dates: an HTTP-date always names its month.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.min(longestRetryAfterMs, Math.max(0, at - now));
}
