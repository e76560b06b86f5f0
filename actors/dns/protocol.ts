// The dns actor: holds the records provider (dns_records) and publishes the domains' address records.
import type { DnsProviderConfig } from './providers/config.js';

export interface DnsConfig {
  records: DnsProviderConfig;
}

export interface DnsApi {
  /** Makes `target` the one address record of `name` (A, AAAA or CNAME); returns the type written. */
  setAddress(name: string, target: string): Promise<'A' | 'AAAA' | 'CNAME'>;
  removeAddress(name: string): Promise<void>;
}
