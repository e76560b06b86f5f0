// Provider failures come back as ERR_DNS_PROVIDER with a reason that names the provider and what to
// check: a wrong token, a zone that is not there, PowerDNS down, Cloudflare's rate limit.
import test from 'ava';
import type { OutpostError } from '../../../src/errors.js';
import { createDnsProvider } from '../../../actors/cert/dns/providers/create.js';
import { withProvider } from '../helpers/dns-provider.js';
import { startPowerDns } from '../../../benchmarks/third-party/powerdns.js';

test('a wrong PowerDNS API key', withProvider, 'powerdns', async (t, { powerdns }) => {
  const provider = createDnsProvider({ provider: 'powerdns', server_url: powerdns.apiUrl, api_token: 'not-the-key', zone: powerdns.zone });
  await t.throwsAsync(provider.setAddress(`app.${powerdns.zone}`, '203.0.113.5'), {
    code: 'ERR_DNS_PROVIDER',
    message: /^powerdns: the API refused the key \(HTTP 401\): check api_token$/,
  });
  await t.throwsAsync(provider.addTxt(`_acme-challenge.app.${powerdns.zone}`, 'value'), {
    code: 'ERR_DNS_PROVIDER',
    message: /^powerdns: the API refused the key/,
  });
});

test('a wrong Cloudflare token', withProvider, 'cloudflare', async (t, { cloudflare, powerdns }) => {
  const provider = createDnsProvider({ provider: 'cloudflare', api_token: 'not-the-token', zone_id: cloudflare!.zoneId, api_url: cloudflare!.apiUrl });
  await t.throwsAsync(provider.setAddress(`app.${powerdns.zone}`, '203.0.113.5'), {
    code: 'ERR_DNS_PROVIDER',
    message: /^cloudflare: authentication failed \(HTTP 403, 9109 Invalid access token\): check api_token/,
  });
  const malformed = createDnsProvider({ provider: 'cloudflare', api_token: 'has spaces', zone_id: cloudflare!.zoneId, api_url: cloudflare!.apiUrl });
  await t.throwsAsync(malformed.list(`app.${powerdns.zone}`), {
    code: 'ERR_DNS_PROVIDER',
    message: /^cloudflare: authentication failed \(HTTP 400, 6003 Invalid request headers \(6111 Invalid format for Authorization header\)\)/,
  });
  t.deepEqual(await powerdns.dig(`app.${powerdns.zone}`, 'A'), []);
});

test('a zone the provider does not have', withProvider, 'powerdns', async (t, { powerdns }) => {
  const provider = createDnsProvider({ provider: 'powerdns', server_url: powerdns.apiUrl, api_token: powerdns.apiKey, zone: 'missing.test' });
  await t.throwsAsync(provider.setAddress('app.missing.test', '203.0.113.5'), {
    code: 'ERR_DNS_PROVIDER',
    message: /^powerdns: zone missing\.test\. not found at http:\/\/127\.0\.0\.1:\d+ \(HTTP 404\): check zone and server_url$/,
  });
});

test('a Cloudflare zone id that is not there', withProvider, 'cloudflare', async (t, { cloudflare }) => {
  const provider = createDnsProvider({
    provider: 'cloudflare',
    api_token: cloudflare!.token,
    zone_id: '0123456789abcdef0123456789abcdef',
    api_url: cloudflare!.apiUrl,
  });
  await t.throwsAsync(provider.zoneName(), {
    code: 'ERR_DNS_PROVIDER',
    message: /^cloudflare: zone 0123456789abcdef0123456789abcdef not found \(HTTP 400, 7003 .*\): check zone_id$/,
  });
});

test('PowerDNS down', async (t) => {
  const powerdns = await startPowerDns();
  const provider = createDnsProvider({ provider: 'powerdns', server_url: powerdns.apiUrl, api_token: powerdns.apiKey, zone: powerdns.zone });
  await powerdns.stop();
  const unreachable = new RegExp(`^powerdns: cannot reach ${powerdns.apiUrl.replaceAll('.', '\\.')} \\(ECONNREFUSED\\); is the provider up\\?$`);
  await t.throwsAsync(provider.setAddress(`app.${powerdns.zone}`, '203.0.113.5'), { code: 'ERR_DNS_PROVIDER', message: unreachable });
  await t.throwsAsync(provider.removeTxt(`_acme-challenge.app.${powerdns.zone}`, 'value'), { code: 'ERR_DNS_PROVIDER', message: unreachable });
});

test(
  'Cloudflare past its request budget answers 429, reported with its Retry-After, which the error carries',
  withProvider,
  'cloudflare',
  async (t, { provider, powerdns }) => {
    // The zone name (1 request) and one listing (1 request) fit; the create is refused.
    const refused = await t.throwsAsync(provider.setAddress(`app.${powerdns.zone}`, '203.0.113.5'), {
      code: 'ERR_DNS_PROVIDER',
      message:
        /^cloudflare: rate limited \(HTTP 429, 971 Please wait and consider throttling your request speed; 1,200 requests per 5 minutes per user, across all of its tokens\), retry after 300 s$/,
    });
    t.is((refused as OutpostError | undefined)?.retryAfterMs, 300_000, "the Retry-After crosses to the domain's backoff");
    const later = await t.throwsAsync(provider.removeAddress(`app.${powerdns.zone}`), { code: 'ERR_DNS_PROVIDER', message: /rate limited/ });
    t.true(((later as OutpostError | undefined)?.retryAfterMs ?? Infinity) <= 300_000, 'the block is counted from its start');
  },
  { requestBudget: 2 },
);
