// A provider's config object: the shape of `dns`, `dns_acme` and `dns_records` in certhub's config.json.
export type DnsProviderConfig =
  /** `api_url` is not for users: tests point it at the Cloudflare double. */
  | { provider: 'cloudflare'; api_token: string; zone_id: string; api_url?: string }
  | { provider: 'powerdns'; server_url: string; api_token: string; zone: string }
  | { provider: 'noop'; zone: string };
