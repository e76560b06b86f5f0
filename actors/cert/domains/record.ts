// A domain as certhub keeps it (`domains/<name>/domain.json`) and as the admin API shows it (the
// same object; the API may mask the token). Times are ISO 8601 strings in UTC, so the file and the
// API read the same; logic converts with Date.parse.
import { z } from 'zod';
import { domainStatuses } from './lifecycle.js';
import type { RecordType } from '../dns/protocol.js';
import { keyTypes } from '../key-types.js';

const isoInstant = z.iso.datetime();
const recordType = z.enum(['A', 'AAAA', 'CNAME']);

export const domainRecordSchema = z.object({
  /** Full name, lower case: `app.example.com`. */
  name: z.string().min(1),
  label: z.string().min(1),
  target: z.string().min(1),
  record_type: recordType,
  /** The ACME profile ordered for this domain; null: acme.profile (or the CA's default). Kept across renewals. */
  profile: z.string().nullable().default(null),
  status: z.enum(domainStatuses),
  /** Why the last attempt failed, shown until the next success. */
  error: z.string().nullable(),
  token: z.string().min(1),
  created_at: isoInstant,
  /** Of the material served now; null until the first certificate. */
  issued_at: isoInstant.nullable(),
  expires_at: isoInstant.nullable(),
  last_fetch: z.object({ at: isoInstant, from: z.string() }).nullable(),
  /** What is in DNS now, as far as certhub knows: differs from target/record_type while a change is pending. */
  published: z.object({ target: z.string(), record_type: recordType }).nullable(),
  /** The CA and account that issued the certificate served (an index-free identity, so reordering acme.cas keeps it); null before the first, or when unknown. */
  issued_by: z.object({ directory_url: z.string(), account_url: z.string() }).nullable().default(null),
  retry: z.object({
    /** Failed attempts in a row; the backoff exponent. */
    failures: z.number().int().min(0),
    /** The index in acme.cas of the CA the next attempt goes to (ca-fallback.ts); 0 except while a failing domain falls back. */
    ca: z.number().int().min(0).default(0),
    /** Failed attempts in a row at that CA. */
    ca_failures: z.number().int().min(0).default(0),
    /** No attempt before this instant (backoff, the CA's Retry-After, or the CA budget's next slot). */
    next_attempt_at: isoInstant.nullable(),
    /** What set next_attempt_at: the backoff, a refusal's Retry-After (CA or DNS provider), the CA budget, or a finalized order the CA is still issuing. */
    waiting_for: z.enum(['backoff', 'retry_after', 'budget', 'issuance']).nullable(),
  }),
  renewal: z.object({
    /** When the current certificate is to be renewed. */
    due_at: isoInstant.nullable(),
    /** What chose due_at: the CA's renewal information (ARI) or the lifetime rule. */
    basis: z.enum(['ari', 'lifetime']).nullable(),
    /** ARI CertID of the current certificate, sent as `replaces` on the renewal order. */
    cert_id: z.string().nullable(),
    /** When to ask the CA's renewalInfo again. */
    ari_next_check_at: isoInstant.nullable(),
    /** The CA's explanation of its suggested window, shown to the operator. */
    ari_explanation_url: z.string().nullable(),
    /** expires_at of the material the "expires within 7 days" notice was sent for (sent once). */
    expiry_notice_for: isoInstant.nullable(),
  }),
  /** The extra names the certificate covers beside `name` (name-set.ts), full and lower case: `www.app.example.com`, `*.app.example.com`. */
  names: z.array(z.string().min(1)).default([]),
  /** Whether the wildcards among `names` get the target's address record too (other names always do). */
  wildcard_records: z.boolean().default(false),
  /** The names of the certificate served (`name` first); null: `name` alone, or nothing issued yet. A set that differs from it orders a new certificate, as the CA counts it. */
  issued_names: z.array(z.string()).nullable().default(null),
  /** The key stays on the domain's host: certhub makes and stores no key for it, and orders for the CSR the host sends (own-key.ts). */
  own_key: z.boolean().default(false),
  /** An own_key domain's latest CSR from its host (csr-check.ts checked it); null before the first. */
  csr: z
    .object({
      pem: z.string(),
      key_type: z.enum(keyTypes),
      /** Base64 of its SubjectPublicKeyInfo (DER): which key a certificate is for. */
      spki: z.string(),
      received_at: isoInstant,
      /** A certificate for it was issued; a renewal reuses it only with acme.reuse_csr. */
      used: z.boolean(),
    })
    .nullable()
    .default(null),
  /** certhub waits for the host's next CSR: an own_key domain before its first, or one whose renewal is due without acme.reuse_csr. */
  csr_wanted: z.boolean().default(false),
});

export type DomainRecord = z.output<typeof domainRecordSchema>;

export interface NewDomain {
  name: string;
  label: string;
  target: string;
  record_type: RecordType;
  token: string;
  profile?: string | null;
  names?: string[];
  wildcard_records?: boolean;
  own_key?: boolean;
}

/** A domain just added: pending, nothing published, nothing issued. */
export function newDomainRecord(domain: NewDomain, now: number): DomainRecord {
  return {
    ...domain,
    profile: domain.profile ?? null,
    names: domain.names ?? [],
    wildcard_records: domain.wildcard_records ?? false,
    issued_names: null,
    own_key: domain.own_key === true,
    csr: null,
    csr_wanted: domain.own_key === true,
    status: 'pending',
    error: null,
    created_at: isoTime(now),
    issued_at: null,
    expires_at: null,
    last_fetch: null,
    published: null,
    issued_by: null,
    retry: { failures: 0, ca: 0, ca_failures: 0, next_attempt_at: null, waiting_for: null },
    renewal: { due_at: null, basis: null, cert_id: null, ari_next_check_at: null, ari_explanation_url: null, expiry_notice_for: null },
  };
}

/** An epoch-milliseconds instant as the ISO string records hold. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}
