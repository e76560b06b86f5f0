// Domains whose key stays on their host (own_key): what a CSR from the host does to the record, which
// CSR an order goes with, and what a renewal does without one. Pure functions over records, as
// logic.ts; the book decides when, stores and publishes.
//
// A renewal reuses the last CSR (the same public key) only with acme.reuse_csr; without it, a renewal
// that comes due waits for the host's next CSR: the record says csr_wanted, the host's fetch answer
// carries it, and certhub-agent fetch --own-key sends a new CSR (with the key it keeps, or a new one
// with --rekey). Re-keying is the host's choice: a CSR for another key than the certificate's is
// ordered for at once.
import { X509Certificate } from 'node:crypto';
import { OutpostError } from '../../../src/errors.js';
import type { CheckedCsr } from './csr-check.js';
import { isoTime, type DomainRecord } from './record.js';
import { certificateNames } from './name-set.js';

/** How long a renewal waiting for its host's CSR is put off before certhub says so again in its log. */
export const csrWaitMs = 6 * 3_600_000;

/** The names a certificate of the domain covers, full names: what a CSR for it must name exactly. */
export function nameSetOf(record: Pick<DomainRecord, 'name' | 'names'>): string[] {
  return certificateNames(record);
}

/** What a CSR from the host makes of the record, and whether an order follows. */
export interface CsrOutcome {
  record: DomainRecord;
  /** An order for the CSR is due now. */
  order: boolean;
}

/**
 * Keeps the CSR the host sent. The same key as the CSR certhub holds and has not ordered for yet
 * changes nothing (an agent sending it again); a CSR for the key of the certificate served, while
 * certhub waits for no CSR, is kept as used (no new certificate); any other orders a certificate.
 * `certificateSpki`: base64 of the served certificate's public key, when there is one.
 */
export function acceptCsr(record: DomainRecord, csr: CheckedCsr, now: number, certificateSpki: string | undefined): CsrOutcome {
  if (!record.own_key) {
    throw new OutpostError(
      'ERR_CONFLICT',
      `${record.name} is not an own_key domain: certhub makes its key; an admin marks it own_key (key kept on the host) before its host sends a CSR`,
    );
  }
  const held = record.csr;
  if (held !== null && !held.used && held.spki === csr.spki) return { record, order: false };
  const kept = { pem: csr.pem, key_type: csr.keyType, spki: csr.spki, received_at: isoTime(now) };
  if (record.status === 'issued' && !record.csr_wanted && certificateSpki === csr.spki)
    return { record: { ...record, csr: { ...kept, used: true } }, order: false };
  return { record: { ...record, csr: { ...kept, used: false }, csr_wanted: false }, order: true };
}

/** The CSR an order goes with: none for a domain certhub keys; 'wait' when an own_key domain has none to order with. */
export function csrForOrder(record: DomainRecord, reuseCsr: boolean): { csr?: string } | 'wait' {
  if (!record.own_key) return {};
  if (record.csr === null || (record.csr.used && !reuseCsr)) return 'wait';
  return { csr: record.csr.pem };
}

/** An issued own_key domain whose renewal is due and has no CSR to order with: it asks its host for one, and is looked at again in csrWaitMs. */
export function awaitCsr(record: DomainRecord, now: number): DomainRecord {
  return { ...record, csr_wanted: true, renewal: { ...record.renewal, due_at: isoTime(now + csrWaitMs) } };
}

/** The certificate ordered with `orderedCsr` is issued: that CSR is used (a CSR that came in meanwhile stays unused, and is ordered for next). */
export function markCsrUsed(record: DomainRecord, orderedCsr: string | undefined): DomainRecord {
  if (orderedCsr === undefined || record.csr?.pem !== orderedCsr) return record;
  return { ...record, csr: { ...record.csr, used: true } };
}

/** Whether an issued own_key domain holds a CSR it has not ordered for (one that came in while an order ran). */
export function csrAwaitsOrder(record: DomainRecord): boolean {
  return record.own_key && record.status === 'issued' && record.csr !== null && !record.csr.used;
}

/**
 * The admin marks the domain own_key, or takes the mark off. Marked, it asks its host for a CSR
 * (the key certhub held goes with the material's key_pem, book.ts); unmarked, its CSR is forgotten
 * and its next certificate has a key certhub makes.
 */
export function withOwnKey(record: DomainRecord, ownKey: boolean): DomainRecord {
  if (record.own_key === ownKey) return record;
  return ownKey ? { ...record, own_key: true, csr: null, csr_wanted: true } : { ...record, own_key: false, csr: null, csr_wanted: false };
}

/** Base64 of the public key of a certificate (PEM). */
export function certificateSpki(certPem: string): string {
  return new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
}
