// What the domains actor does to a record, as pure functions: each takes a record and returns the
// next one (never changing its argument), so the actor only decides when, stores, and publishes.
// Status changes go through the lifecycle table (lifecycle.ts); a change it does not allow throws
// ERR_CONFLICT.
import { OutpostError } from '../../../src/errors.js';
import type { NextAttempt } from './backoff.js';
import { nextStatus, type DomainEvent } from './lifecycle.js';
import { isoTime, type DomainRecord } from './record.js';
import { newDomainToken } from './token.js';
import { planRenewal } from '../renewal/logic.js';

/** Whether the DNS record must still be written (new domain, changed target, or a crash in between). */
export function needsPublishing(record: DomainRecord): boolean {
  return record.published === null || record.published.target !== record.target || record.published.record_type !== record.record_type;
}

/** A new token; the old one stops working as soon as the replica without it reaches the fronts. */
export function rotateToken(record: DomainRecord): DomainRecord {
  return { ...record, token: newDomainToken() };
}

/** The record after its material was fetched by `from` (a client address). */
export function recordFetch(record: DomainRecord, now: number, from: string): DomainRecord {
  return { ...record, last_fetch: { at: isoTime(now), from } };
}

/** An order starts (from pending) or a renewal starts (from issued). */
export function startOrder(record: DomainRecord): DomainRecord {
  const event: DomainEvent = record.status === 'issued' ? 'renew' : 'start';
  return { ...record, status: statusAfter(record, event), retry: { ...record.retry, next_attempt_at: null, waiting_for: null } };
}

/** What the CA budget counts an order for this domain as: a renewal once it ever had a certificate. */
export function certificateKind(record: DomainRecord): 'new' | 'renewal' {
  if (record.issued_at === null) return 'new';
  // The CA takes a certificate for another set of names as a new one, not as a renewal.
  const issued = record.issued_names ?? [record.name];
  const wanted = [record.name, ...record.names];
  return issued.length === wanted.length && wanted.every((name) => issued.includes(name)) ? 'renewal' : 'new';
}

/** Pending until the CA budget has a slot for it, at `slotAt`. */
export function waitForBudget(record: DomainRecord, slotAt: number): DomainRecord {
  if (record.status !== 'pending') throw new OutpostError('ERR_CONFLICT', `a domain that is ${record.status} does not wait for the CA budget`);
  return { ...record, retry: { ...record.retry, next_attempt_at: isoTime(slotAt), waiting_for: 'budget' } };
}

/** An issued domain the operator renews now. */
export function renewalDueNow(record: DomainRecord, now: number): DomainRecord {
  return { ...record, renewal: { ...record.renewal, due_at: isoTime(now) } };
}

/** An issued domain whose renewal the CA's limits hold: renewed at `at` instead. */
export function deferRenewal(record: DomainRecord, at: number): DomainRecord {
  if (record.status !== 'issued') throw new OutpostError('ERR_CONFLICT', `a domain that is ${record.status} has no renewal to put off`);
  return { ...record, renewal: { ...record.renewal, due_at: isoTime(at) } };
}

/**
 * The CA has the finalized order and has not issued it yet: back to pending, resumed at `at` (the
 * CA's Retry-After), with no failure counted. `reason` is shown meanwhile.
 */
export function awaitIssuance(record: DomainRecord, reason: string, at: number): DomainRecord {
  return {
    ...record,
    status: statusAfter(record, 'interrupted'),
    error: reason,
    retry: { ...record.retry, next_attempt_at: isoTime(at), waiting_for: 'issuance' },
  };
}

export interface IssuedCertificate {
  /** The CA and account that issued it; absent for a demo certificate. */
  issuedBy?: { directory_url: string; account_url: string };
  /** Epoch milliseconds of the new certificate. */
  notBefore: number;
  notAfter: number;
  /** ARI CertID, sent as `replaces` on its renewal order; null when the certificate has none. */
  certId: string | null;
  /** When to renew it (renewal/logic.ts planRenewal). */
  renewal: { dueAt: number; basis: 'ari' | 'lifetime'; explanationUrl: string | undefined };
}

/** The order succeeded: the record describes the new certificate, store it with its material in one write. */
export function markIssued(record: DomainRecord, certificate: IssuedCertificate): DomainRecord {
  return {
    ...record,
    status: statusAfter(record, 'issued'),
    error: null,
    issued_at: isoTime(certificate.notBefore),
    expires_at: isoTime(certificate.notAfter),
    issued_by: certificate.issuedBy ?? null,
    // The next order (the renewal) starts again from the first CA.
    retry: { failures: 0, ca: 0, ca_failures: 0, next_attempt_at: null, waiting_for: null },
    renewal: {
      ...record.renewal,
      due_at: isoTime(certificate.renewal.dueAt),
      basis: certificate.renewal.basis,
      cert_id: certificate.certId,
      ari_explanation_url: certificate.renewal.explanationUrl ?? null,
    },
  };
}

/**
 * A failure (publishing the record, or the order): the reason is kept, the next attempt when backoff.ts
 * says, and why; `ca` is the CA the next attempt goes to (ca-fallback.ts), the same one when absent.
 */
export function markFailed(record: DomainRecord, reason: string, next: NextAttempt, ca?: { ca: number; caFailures: number }): DomainRecord {
  return {
    ...record,
    status: statusAfter(record, 'failed'),
    error: reason,
    retry: {
      failures: record.retry.failures + 1,
      ca: ca?.ca ?? record.retry.ca,
      ca_failures: ca?.caFailures ?? record.retry.ca_failures + 1,
      next_attempt_at: isoTime(next.at),
      waiting_for: next.reason,
    },
  };
}

/**
 * The record without the ARI state of its certificate (its CertID, its next renewalInfo check, the CA's
 * window): the CA or account that issued it is not the one certhub holds now, so `replaces` and
 * renewalInfo would name a CertID the CA's present account does not know. A renewal planned by ARI is
 * planned by the lifetime rule again.
 */
export function forgetAriState(record: DomainRecord, random: () => number = Math.random): DomainRecord {
  const { renewal } = record;
  if (renewal.cert_id === null && renewal.ari_next_check_at === null && renewal.basis !== 'ari') return record;
  const lifetime =
    renewal.basis === 'ari' && record.issued_at !== null && record.expires_at !== null
      ? planRenewal({ facts: { notBefore: Date.parse(record.issued_at), notAfter: Date.parse(record.expires_at) } }, random)
      : undefined;
  return {
    ...record,
    renewal: {
      ...renewal,
      cert_id: null,
      ari_next_check_at: null,
      ari_explanation_url: null,
      ...(lifetime === undefined ? {} : { due_at: isoTime(lifetime.dueAt), basis: lifetime.basis }),
    },
  };
}

/** Back to pending for another attempt (the backoff delay passed, or the operator asked); the failure count stays for the backoff. */
export function retry(record: DomainRecord): DomainRecord {
  return { ...record, status: statusAfter(record, 'retry'), retry: { ...record.retry, next_attempt_at: null, waiting_for: null } };
}

/** At start: an order that was in flight when the process stopped starts again from pending. */
export function resumeAfterRestart(record: DomainRecord): DomainRecord {
  return record.status === 'issuing' ? { ...record, status: statusAfter(record, 'interrupted') } : record;
}

/** The record after the "expires within 7 days" notice was sent for its current certificate. */
export function markExpiryNoticeSent(record: DomainRecord): DomainRecord {
  return { ...record, renewal: { ...record.renewal, expiry_notice_for: record.expires_at } };
}

function statusAfter(record: DomainRecord, event: DomainEvent): DomainRecord['status'] {
  const next = nextStatus(record.status, event);
  if (next === 'removed') throw new OutpostError('ERR_INTERNAL', 'removal deletes the record; it has no next record');
  return next;
}
