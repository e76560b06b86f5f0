// The one interface every DNS provider implements (cloudflare.ts, powerdns.ts, noop.ts), and the rules
// they share: which record a target makes, how names and TXT values are written.
import { OutpostError } from '../../../../src/errors.js';
import type { RecordType } from '../protocol.js';
import { targetRecord } from '../targets.js';

export type ProviderKind = 'cloudflare' | 'powerdns' | 'noop';
/** The records certhub writes: a domain's address record, and the TXT record of a DNS-01 challenge. */
export type DnsRecordType = RecordType | 'TXT';

/** A record as every provider reports it: name without trailing dot, CNAME content without trailing dot, TXT content unquoted. */
export interface DnsRecord {
  name: string;
  type: DnsRecordType;
  content: string;
  ttl: number;
}

export interface DnsProvider {
  readonly kind: ProviderKind;
  /** The zone's apex, without trailing dot (`example.com`). */
  zoneName(): Promise<string>;
  /**
   * Makes `target` the one address record of `name`: an IPv4 address gives A, IPv6 AAAA, a host name
   * CNAME. Records of the other two types at `name` are removed first (A and CNAME cannot share a
   * name), so switching between an address and a host name works. Returns the type written. Only
   * records certhub created are touched: with any other address record at `name`, ERR_CONFLICT and
   * no change.
   */
  setAddress(name: string, target: string): Promise<RecordType>;
  /** Removes the A, AAAA and CNAME records of `name` that certhub created; nothing there is not an error. */
  removeAddress(name: string): Promise<void>;
  /**
   * Before a domain is added: ERR_CONFLICT naming the A, AAAA and CNAME records at `name` that
   * certhub did not create; with `adopt`, marks them as certhub's instead (setAddress may then
   * replace them, removeAddress delete them).
   */
  claimAddress(name: string, adopt: boolean): Promise<void>;
  /** Adds `value` to the TXT values of `name`, keeping the others (concurrent orders for one name coexist). */
  addTxt(name: string, value: string): Promise<void>;
  /** Removes exactly `value` from the TXT values of `name`; the others stay. Absent is not an error. */
  removeTxt(name: string, value: string): Promise<void>;
  /** The A, AAAA, CNAME and TXT records at `name`. */
  list(name: string): Promise<DnsRecord[]>;
  /** What in the zone's setup would make changes go unseen (checked once at start and logged); none when absent. */
  warnings?(): Promise<string[]>;
  /** How certhub writes to this provider, where the server decides it (PowerDNS's version): logged once at start. */
  notes?(): Promise<string[]>;
}

/**
 * How certhub recognises the address records it created: the provider keeps the mark
 * with the record itself (a Cloudflare record's comment, a PowerDNS RRset's comment), so it survives
 * restarts, a lost answer and a record changed by hand, and nothing else needs to be kept in step.
 */
export const ownerMark = 'managed by certhub';

/** ERR_CONFLICT (409) naming the address records at `fqdn` that certhub did not create. */
export function foreignRecordsConflict(fqdn: string, records: readonly { type: string; content: string }[]): OutpostError {
  const named = records.map((record) => `${record.type} ${readableContent(record.type, record.content)}`).join(', ');
  return new OutpostError(
    'ERR_CONFLICT',
    `${fqdn} already has address records certhub did not create (${named}): certhub neither replaces nor deletes them; remove them, or send the add or the target change with "adopt": true to let certhub manage them`,
  );
}

/** The record `target` makes, by the one rule the domains actor applies too (targets.ts). */
export function addressRecordFor(target: string): { type: RecordType; content: string } {
  const { target: content, record_type: type } = targetRecord(target);
  return { type, content };
}

const hostLabel = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/** A DNS host name: dot-separated labels of letters, digits, hyphens (underscore for service labels), at most 253 characters, not all digits. */
export function isHostName(name: string): boolean {
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split('.');
  // A name whose last label is numeric would be read as an IPv4 address by resolvers.
  if (/^\d+$/.test(labels[labels.length - 1] ?? '')) return false;
  return labels.every((label) => hostLabel.test(label));
}

/** A name as providers take it: lower case, no trailing dot. */
export function canonicalName(name: string): string {
  const canonical = name.replace(/\.$/, '').toLowerCase();
  if (!isHostName(canonical)) throw new OutpostError('ERR_BAD_REQUEST', `${JSON.stringify(name)} is not a DNS name`);
  return canonical;
}

/** Fails unless `name` is the zone's apex or inside it. */
export function assertInZone(provider: ProviderKind, name: string, zone: string): void {
  if (name !== zone && !name.endsWith(`.${zone}`)) throw new OutpostError('ERR_BAD_REQUEST', `${provider}: ${name} is outside the zone ${zone}`);
}

/** TXT content as written on the wire by both APIs: one quoted string, `"` and `\` escaped. */
export function quoteTxt(value: string): string {
  return `"${value.replace(/[\\"]/g, (character) => `\\${character}`)}"`;
}

/**
 * TXT content as a plain value, whether the provider kept the quotes or not: `"a" "b"` (one value split
 * into strings) reads as `ab`, escapes are undone, unquoted content is taken as it is.
 */
export function unquoteTxt(content: string): string {
  const trimmed = content.trim();
  if (!trimmed.startsWith('"')) return trimmed;
  const strings = trimmed.match(/"((?:[^"\\]|\\.)*)"/g) ?? [];
  return strings.map((quoted) => quoted.slice(1, -1).replace(/\\(.)/g, '$1')).join('');
}

/** Record content as DnsRecord reports it: TXT unquoted, CNAME without trailing dot. */
export function readableContent(type: string, content: string): string {
  if (type === 'TXT') return unquoteTxt(content);
  if (type === 'CNAME') return content.replace(/\.$/, '').toLowerCase();
  return content;
}

/** Runs operations on the same key one after the other, so a read-modify-write of one RRset never interleaves with another. */
export { KeyedSerializer } from '../../../../src/store/keyed-serializer.js';

/**
 * At most `limit` operations of one key running at once; the rest wait their turn in call order. A
 * request's deadline then measures the service, not the queue in front of it.
 */
export class KeyedConcurrency {
  private readonly running = new Map<string, { count: number; waiting: (() => void)[] }>();

  constructor(private readonly limit: number) {}

  async run<T>(key: string, operation: () => Promise<T>): Promise<T> {
    let slot = this.running.get(key);
    if (slot === undefined) {
      slot = { count: 0, waiting: [] };
      this.running.set(key, slot);
    }
    if (slot.count >= this.limit) await new Promise<void>((resolve) => slot.waiting.push(resolve));
    else slot.count++;
    try {
      return await operation();
    } finally {
      // The slot passes to the next in line, or is freed.
      const next = slot.waiting.shift();
      if (next !== undefined) next();
      else if (--slot.count === 0) this.running.delete(key);
    }
  }
}
