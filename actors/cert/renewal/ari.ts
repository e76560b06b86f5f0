// ACME Renewal Information (RFC 9773): the CA says when each certificate should be renewed. The
// client asks `<renewalInfo>/<CertID>`, renews at a random instant inside the suggested window, asks
// again after Retry-After, and names the certificate it replaces on the renewal order.
import { retryAfterMs } from '../../../src/http/retry-after.js';
import { clampRetryAfter } from './retry-after.js';
import type { CertificateFacts } from './certificate-facts.js';

/** How long to wait before asking again when the CA sends no Retry-After (RFC 9773 §4.3: at least twice a day). */
export const defaultAriCheckIntervalMs = 6 * 3_600_000;

/**
 * RFC 9773 §4.1: base64url(keyIdentifier of the AKI) "." base64url(serial DER content octets),
 * without padding. Throws for a certificate without an authority key identifier.
 */
export function ariCertId(facts: Pick<CertificateFacts, 'authorityKeyId' | 'serial'>): string {
  if (facts.authorityKeyId === undefined) throw new Error('the certificate has no authority key identifier, so it has no ARI CertID');
  return `${Buffer.from(facts.authorityKeyId).toString('base64url')}.${Buffer.from(facts.serial).toString('base64url')}`;
}

/** The URL to ask for a certificate's renewal information. */
export function renewalInfoUrl(renewalInfo: string, certId: string): string {
  return `${renewalInfo.replace(/\/+$/, '')}/${certId}`;
}

export interface RenewalWindow {
  /** Epoch milliseconds. */
  start: number;
  end: number;
}

export type RenewalInfoAnswer =
  | { ok: true; window: RenewalWindow; explanationUrl: string | undefined; nextCheckAt: number }
  | { ok: false; reason: string; nextCheckAt: number };

/**
 * Reads a renewalInfo answer: its JSON body and Retry-After header. A window whose end is not after
 * its start is a failure (RFC 9773 §4.2); the caller keeps its previous plan or the lifetime rule.
 */
export function parseRenewalInfo(body: unknown, retryAfter: string | null | undefined, now: number): RenewalInfoAnswer {
  const delay = retryAfterMs(retryAfter, now);
  const nextCheckAt = now + (delay === undefined ? defaultAriCheckIntervalMs : clampRetryAfter(delay));
  const fail = (reason: string): RenewalInfoAnswer => ({ ok: false, reason: `renewalInfo answer ${reason}`, nextCheckAt });
  if (typeof body !== 'object' || body === null) return fail('is not a JSON object');
  const { suggestedWindow, explanationURL } = body as { suggestedWindow?: unknown; explanationURL?: unknown };
  if (typeof suggestedWindow !== 'object' || suggestedWindow === null) return fail('has no suggestedWindow');
  const { start, end } = suggestedWindow as { start?: unknown; end?: unknown };
  const startAt = typeof start === 'string' ? Date.parse(start) : NaN;
  const endAt = typeof end === 'string' ? Date.parse(end) : NaN;
  if (Number.isNaN(startAt) || Number.isNaN(endAt)) return fail('has a suggestedWindow without valid start and end times');
  if (endAt <= startAt) return fail(`has a suggestedWindow that ends (${String(end)}) before it starts (${String(start)})`);
  const explanationUrl = typeof explanationURL === 'string' && /^https?:\/\//.test(explanationURL) ? explanationURL : undefined;
  return { ok: true, window: { start: startAt, end: endAt }, explanationUrl, nextCheckAt };
}
