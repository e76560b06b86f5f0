// A provider from its config object (the shape of `dns`, `dns_acme` and `dns_records` in certhub's
// config.json); `--demo` uses the no-op one for the base domain.
import { CloudflareProvider } from './cloudflare.js';
import type { DnsProviderConfig } from './config.js';
import { NoopProvider } from './noop.js';
import { PowerDnsProvider } from './powerdns.js';
import type { DnsProvider } from './provider.js';

export type { DnsProviderConfig } from './config.js';

export interface ProviderTuning {
  /** TTL of the records written; default per provider (Cloudflare 120, PowerDNS 60). */
  ttl?: number;
  /** Deadline of one API request; default 10 s. */
  timeoutMs?: number;
}

export function createDnsProvider(config: DnsProviderConfig, tuning: ProviderTuning = {}): DnsProvider {
  switch (config.provider) {
    case 'cloudflare':
      return new CloudflareProvider({ apiToken: config.api_token, zoneId: config.zone_id, apiUrl: config.api_url, ...tuning });
    case 'powerdns':
      return new PowerDnsProvider({ serverUrl: config.server_url, apiToken: config.api_token, zone: config.zone, ...tuning });
    case 'noop':
      return new NoopProvider(config.zone);
    default:
      throw new Error(`unknown DNS provider ${JSON.stringify((config as { provider: unknown }).provider)}`);
  }
}
