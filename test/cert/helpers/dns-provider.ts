// A DnsProvider under test, against a real PowerDNS: the PowerDNS provider talks to it directly, the
// Cloudflare provider through the Cloudflare double, which writes into it. Both stopped in `finally`.
import test, { type ExecutionContext } from 'ava';
import { createDnsProvider } from '../../../actors/cert/dns/providers/create.js';
import type { DnsProvider } from '../../../actors/cert/dns/providers/provider.js';
import { startCloudflareDouble, type CloudflareDouble, type CloudflareDoubleOptions } from '../fixtures/cloudflare/cloudflare-double.js';
import { startPowerDns, type PowerDnsServer } from '../../../benchmarks/third-party/powerdns.js';

export type ProviderUnderTest = 'powerdns' | 'cloudflare';
export const providersUnderTest: readonly ProviderUnderTest[] = ['powerdns', 'cloudflare'];

export interface ProviderFixture {
  provider: DnsProvider;
  powerdns: PowerDnsServer;
  /** Present when the provider is Cloudflare. */
  cloudflare?: CloudflareDouble;
}

export type DoubleTuning = Omit<CloudflareDoubleOptions, 'zone' | 'powerdns'>;

export async function startProvider(kind: ProviderUnderTest, tuning: DoubleTuning = {}): Promise<ProviderFixture & { stop(): Promise<void> }> {
  const powerdns = await startPowerDns();
  if (kind === 'powerdns') {
    const provider = createDnsProvider({ provider: 'powerdns', server_url: powerdns.apiUrl, api_token: powerdns.apiKey, zone: powerdns.zone });
    return { provider, powerdns, stop: () => powerdns.stop() };
  }
  try {
    const cloudflare = await startCloudflareDouble({ zone: powerdns.zone, powerdns, ...tuning });
    const provider = createDnsProvider({ provider: 'cloudflare', api_token: cloudflare.token, zone_id: cloudflare.zoneId, api_url: cloudflare.apiUrl });
    return {
      provider,
      // These tests check the DNS side once a change has reached it: dig waits out the double's
      // propagation delay first (cert-dns-cloudflare-double.test.ts shows the delay itself).
      powerdns: { ...powerdns, dig: async (name, type) => (await cloudflare.propagated(), powerdns.dig(name, type)) },
      cloudflare,
      async stop() {
        await cloudflare.close();
        await powerdns.stop();
      },
    };
  } catch (error) {
    await powerdns.stop();
    throw error;
  }
}

/** An ava macro over one provider kind; the title names the kind. */
export const withProvider = test.macro({
  async exec(t, kind: ProviderUnderTest, body: (t: ExecutionContext, fixture: ProviderFixture) => Promise<void>, tuning: DoubleTuning = {}) {
    const fixture = await startProvider(kind, tuning);
    try {
      await body(t, fixture);
    } finally {
      await fixture.stop();
    }
  },
  title: (title = '', kind: ProviderUnderTest) => `${kind}: ${title}`,
});
