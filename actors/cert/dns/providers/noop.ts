// The demo provider: contacts nothing. It keeps the records it is given in memory so that what is
// listed matches what was set, as with a real provider.
import { addressRecordFor, assertInZone, canonicalName, type DnsProvider, type DnsRecord } from './provider.js';
import type { RecordType } from '../protocol.js';

const demoTtl = 60;

export class NoopProvider implements DnsProvider {
  readonly kind = 'noop';
  private readonly zone: string;
  private readonly records = new Map<string, DnsRecord[]>();

  constructor(zone: string) {
    this.zone = canonicalName(zone);
  }

  zoneName(): Promise<string> {
    return Promise.resolve(this.zone);
  }

  setAddress(name: string, target: string): Promise<RecordType> {
    const fqdn = this.nameInZone(name);
    const { type, content } = addressRecordFor(target);
    this.records.set(fqdn, [...this.at(fqdn).filter((record) => record.type === 'TXT'), { name: fqdn, type, content, ttl: demoTtl }]);
    return Promise.resolve(type);
  }

  removeAddress(name: string): Promise<void> {
    const fqdn = this.nameInZone(name);
    this.keep(
      fqdn,
      this.at(fqdn).filter((record) => record.type === 'TXT'),
    );
    return Promise.resolve();
  }

  /** The demo's records are all certhub's: nothing to refuse or adopt. */
  claimAddress(name: string): Promise<void> {
    this.nameInZone(name);
    return Promise.resolve();
  }

  addTxt(name: string, value: string): Promise<void> {
    const fqdn = this.nameInZone(name);
    const records = this.at(fqdn);
    if (!records.some((record) => record.type === 'TXT' && record.content === value))
      this.records.set(fqdn, [...records, { name: fqdn, type: 'TXT', content: value, ttl: demoTtl }]);
    return Promise.resolve();
  }

  removeTxt(name: string, value: string): Promise<void> {
    const fqdn = this.nameInZone(name);
    this.keep(
      fqdn,
      this.at(fqdn).filter((record) => record.type !== 'TXT' || record.content !== value),
    );
    return Promise.resolve();
  }

  list(name: string): Promise<DnsRecord[]> {
    return Promise.resolve(this.at(this.nameInZone(name)).map((record) => ({ ...record })));
  }

  private nameInZone(name: string): string {
    const fqdn = canonicalName(name);
    assertInZone(this.kind, fqdn, this.zone);
    return fqdn;
  }

  private at(fqdn: string): DnsRecord[] {
    return this.records.get(fqdn) ?? [];
  }

  private keep(fqdn: string, records: DnsRecord[]): void {
    if (records.length === 0) this.records.delete(fqdn);
    else this.records.set(fqdn, records);
  }
}
