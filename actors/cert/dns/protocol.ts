// The dns actor: holds the records provider (dns_records) and the challenges provider (dns_acme), and
// is the one thread that writes to them. PowerDNS's sqlite3 backend refuses concurrent writes
// ("database is locked"): with every change of a zone made here, its group commit (providers/
// group-commit.ts) turns 50 orders and their address records into a few PATCHes, never two at once.
import type { DnsProviderConfig } from './providers/config.js';

/** The address records a target makes: IPv4 -> A, IPv6 -> AAAA, a host name -> CNAME (targets.ts). */
export type RecordType = 'A' | 'AAAA' | 'CNAME';

export interface DnsConfig {
  records: DnsProviderConfig;
  challenges: DnsProviderConfig;
}

export interface DnsApi {
  /** Makes `target` the one address record of `name` (A, AAAA or CNAME); returns the type written. */
  setAddress(name: string, target: string): Promise<RecordType>;
  /** Removes the address records of `name` that certhub created (never another's). */
  removeAddress(name: string): Promise<void>;
  /** ERR_CONFLICT naming the address records at `name` certhub did not create, unless `adopt` makes them certhub's. */
  claimAddress(name: string, adopt: boolean): Promise<void>;
  /** Adds a challenge value to the TXT values of `name` (with the dns_acme provider), keeping the others. */
  addTxt(name: string, value: string): Promise<void>;
  /** Removes exactly that challenge value; absent is not an error. */
  removeTxt(name: string, value: string): Promise<void>;
}
