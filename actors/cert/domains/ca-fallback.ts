// Which CA of acme.cas a domain's next attempt goes to. Attempts go to the first CA; after
// `fallbackAfter` failures in a row there, or at once after a refusal that will not pass soon (an
// account problem, or a rate limit whose Retry-After lies past the time the domain can wait), the
// next CA is tried, and so on down the list; past the last, the first again, after the usual backoff.
// A success starts the domain's next order (its renewal) from the first CA again (logic.ts markIssued).
import type { DomainRecord } from './record.js';
import { expiryNoticeAt } from '../renewal/logic.js';

/** RFC 8555 §6.7 problem types about the account: a retry at the same CA does not mend them. */
const accountProblems: ReadonlySet<string> = new Set([
  'urn:ietf:params:acme:error:accountDoesNotExist',
  'urn:ietf:params:acme:error:unauthorized',
  'urn:ietf:params:acme:error:externalAccountRequired',
  'urn:ietf:params:acme:error:userActionRequired',
]);

const rateLimited = 'urn:ietf:params:acme:error:rateLimited';

/** How long a domain without a certificate waits out a rate limit at one CA before it is ordered from the next. */
export const newCertificatePatienceMs = 3_600_000;

export interface FallbackSettings {
  /** The directory URLs of acme.cas, in order. */
  cas: readonly string[];
  /** acme.fallback_after. */
  fallbackAfter: number;
}

/** What the refusal said: the CA's problem type and Retry-After, when it sent them. */
export interface Refusal {
  problemType: string | undefined;
  retryAfterMs: number | undefined;
}

export interface CaAfterFailure {
  /** The index of the CA the next attempt goes to. */
  ca: number;
  /** Failures in a row at that CA. */
  caFailures: number;
  /** Why the domain moves on to another CA; undefined when it stays. */
  moved: 'failures' | 'refusal' | undefined;
  /** The next attempt goes to the new CA now rather than after the backoff (not when the list starts over). */
  atOnce: boolean;
}

/** The instant past which a refusal's wait is too long for the domain: its expiry notice for a renewal, an hour for a new certificate. */
export function patienceEnd(record: DomainRecord, now: number): number {
  const notice = expiryNoticeAt(record.issued_at, record.expires_at, null);
  return notice ?? now + newCertificatePatienceMs;
}

/** Whether a refusal will not pass soon: an account problem, or a rate limit lasting past the domain's patience. */
export function lastingRefusal(refusal: Refusal, record: DomainRecord, now: number): boolean {
  const { problemType, retryAfterMs } = refusal;
  if (problemType === undefined) return false;
  if (accountProblems.has(problemType)) return true;
  return problemType === rateLimited && retryAfterMs !== undefined && now + retryAfterMs > patienceEnd(record, now);
}

/** The CA after a failed attempt at the record's current one. */
export function caAfterFailure(record: DomainRecord, refusal: Refusal, now: number, settings: FallbackSettings): CaAfterFailure {
  const count = Math.max(settings.cas.length, 1);
  const current = Math.min(record.retry.ca, count - 1);
  const caFailures = record.retry.ca_failures + 1;
  if (count === 1) return { ca: 0, caFailures, moved: undefined, atOnce: false };
  const lasting = lastingRefusal(refusal, record, now);
  if (!lasting && caFailures < settings.fallbackAfter) return { ca: current, caFailures, moved: undefined, atOnce: false };
  const next = (current + 1) % count;
  return { ca: next, caFailures: 0, moved: lasting ? 'refusal' : 'failures', atOnce: next !== 0 };
}
