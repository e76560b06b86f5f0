// When a certificate is renewed. With ARI (RFC 9773), at a random instant inside the CA's suggested
// window; without, when a third of its lifetime remains (half for certificates of 10 days or less,
// so a 6-day certificate is renewed with 3 days left), moved a little earlier at random so that
// certificates issued together are not all renewed in the same minute.
import type { RenewalWindow } from './ari.js';
import type { CertificateFacts } from './certificate-facts.js';

const dayMs = 86_400_000;
/** Certificates living this long or less are renewed at half their lifetime. */
export const shortLivedMs = 10 * dayMs;
/** Lifetime-rule renewals are spread over this share of the lifetime before the nominal instant. */
export const lifetimeJitterFraction = 0.05;
/** A certificate this close to expiry gets a notice (log, and the webhook when set); see expiryNoticeAt. */
export const expiryNoticeMs = 7 * dayMs;

export type RenewalBasis = 'ari' | 'lifetime';

export interface RenewalPlan {
  /** Epoch milliseconds; in the past means now. */
  dueAt: number;
  basis: RenewalBasis;
  /** The CA's explanation of its window (ARI), to show the operator. */
  explanationUrl: string | undefined;
}

/** The lifetime rule's window: it ends where a third (or half) of the lifetime remains. */
export function lifetimeRenewalWindow(facts: Pick<CertificateFacts, 'notBefore' | 'notAfter'>): RenewalWindow {
  const lifetime = facts.notAfter - facts.notBefore;
  const end = Math.floor(facts.notAfter - (lifetime <= shortLivedMs ? lifetime / 2 : lifetime / 3));
  return { start: Math.floor(end - lifetime * lifetimeJitterFraction), end };
}

/** A uniformly random instant in the window (RFC 9773 §4.2 asks for one, so renewals spread out). */
export function pickInstant(window: RenewalWindow, random: () => number = Math.random): number {
  return Math.floor(window.start + random() * (window.end - window.start));
}

export interface PlanInput {
  facts: Pick<CertificateFacts, 'notBefore' | 'notAfter'>;
  /** The CA's latest valid answer for this certificate, if it offers ARI. */
  ari?: { window: RenewalWindow; explanationUrl: string | undefined } | undefined;
  /** The plan made earlier for the same certificate, if any. */
  previous?: RenewalPlan | undefined;
}

/**
 * When to renew. An earlier ARI instant that still lies inside the new window is kept (picking again
 * on every answer would drift renewals towards the window's start); an earlier lifetime plan is kept
 * while there is no ARI answer.
 */
export function planRenewal(input: PlanInput, random: () => number = Math.random): RenewalPlan {
  const { ari, previous } = input;
  if (ari !== undefined) {
    const keep = previous?.basis === 'ari' && previous.dueAt >= ari.window.start && previous.dueAt <= ari.window.end;
    return { dueAt: keep ? previous.dueAt : pickInstant(ari.window, random), basis: 'ari', explanationUrl: ari.explanationUrl };
  }
  if (previous?.basis === 'lifetime') return previous;
  return { dueAt: pickInstant(lifetimeRenewalWindow(input.facts), random), basis: 'lifetime', explanationUrl: undefined };
}

/**
 * When the "expires soon" notice of a certificate is due: 7 days before it expires, or a quarter of its
 * lifetime before for short-lived ones (a 6-day certificate is always within 7 days of expiry; renewed
 * with half its lifetime left, it gets the notice only once renewals have failed for a while).
 * Undefined when there is no certificate, or the notice was sent for this one (`noticeSentFor` is the
 * expires_at it was sent for).
 */
export function expiryNoticeAt(issuedAt: string | null, expiresAt: string | null, noticeSentFor: string | null): number | undefined {
  if (expiresAt === null || expiresAt === noticeSentFor) return undefined;
  const expires = Date.parse(expiresAt);
  const lifetime = issuedAt === null ? Infinity : expires - Date.parse(issuedAt);
  return expires - Math.min(expiryNoticeMs, lifetime / 4);
}
