// The error codes of the cert role (src/errors.ts), with the HTTP status a front answers for each;
// listed in the role's definition for the docs' error table.
import { declareErrors } from '../../src/errors.js';

export const certErrorTable = {
  ERR_DNS_PROVIDER: { status: 502, summary: 'the DNS provider refused or failed a change (credentials, zone, provider down)' },
  ERR_DNS_PROPAGATION: { status: 504, summary: 'the authoritative nameservers did not all answer the challenge record in time' },
  ERR_ACME_ORDER: { status: 502, summary: 'the certificate authority refused or failed the order' },
  ERR_ACME_PROCESSING: { status: 504, summary: 'the certificate authority has not issued a finalized order yet; the order is resumed later' },
} as const;

export const certErrors = declareErrors(certErrorTable);
