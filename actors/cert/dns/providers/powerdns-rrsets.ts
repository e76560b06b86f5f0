// The RRsets of the PowerDNS zone API, as read and as written in a PATCH
// (doc.powerdns.com/authoritative/http-api/zone.html): names with a trailing dot, comments per RRset.
import { quoteTxt } from './provider.js';
import type { DnsRecordType } from './provider.js';

/** A comment on an RRset (PowerDNS keeps comments per RRset, not per record). */
export interface RrsetComment {
  content: string;
  account: string;
}

export interface RrsetRecord {
  content: string;
  disabled: boolean;
}

/** An RRset as GET answers it. */
export interface Rrset {
  name: string;
  type: string;
  ttl: number;
  records: RrsetRecord[];
  comments?: RrsetComment[];
}

/**
 * One RRset of a PATCH. REPLACE writes the whole RRset, DELETE removes it; EXTEND adds its one record
 * unless the RRset has it already, PRUNE removes its one record if there (PowerDNS 4.9.12, 5.0.2 and
 * later: powerdns-version.ts). Neither EXTEND nor PRUNE touches the RRset's other records or comments.
 */
export interface RrsetChange {
  name: string;
  type: DnsRecordType;
  changetype: 'REPLACE' | 'DELETE' | 'EXTEND' | 'PRUNE';
  ttl?: number;
  records?: RrsetRecord[];
  comments?: RrsetComment[];
}

export function deletion(fqdn: string, type: DnsRecordType): RrsetChange {
  return { name: `${fqdn}.`, type, changetype: 'DELETE' };
}

export function txtReplacement(fqdn: string, records: readonly RrsetRecord[], ttl: number): RrsetChange {
  return { name: `${fqdn}.`, type: 'TXT', changetype: 'REPLACE', ttl, records: records.map(({ content, disabled }) => ({ content, disabled })) };
}

/** Adds one TXT value, enabled, to whatever the RRset holds. */
export function txtExtension(fqdn: string, value: string, ttl: number): RrsetChange {
  return { name: `${fqdn}.`, type: 'TXT', changetype: 'EXTEND', ttl, records: [{ content: quoteTxt(value), disabled: false }] };
}

/** Removes one TXT value from the RRset, if it holds it. */
export function txtPruning(fqdn: string, value: string, ttl: number): RrsetChange {
  return { name: `${fqdn}.`, type: 'TXT', changetype: 'PRUNE', ttl, records: [{ content: quoteTxt(value), disabled: false }] };
}
