import test from 'ava';
import { certConfigSchema, cloudflareApiUrl, dnsDuties, letsEncryptDirectories } from '../../../actors/cert/config.js';
import { validateConfig } from '../../../src/config/load.js';
import { ConfigError } from '../../../src/errors.js';

const strict = certConfigSchema({ demo: false });
const demo = certConfigSchema({ demo: true });
const adminKey = 'cha_0123456789abcdef0123456789abcdef';
const cloudflare = { provider: 'cloudflare', api_token: 'cf-token', zone_id: '023e105f4ecef8ad9ca31a8372d0c353' };
const powerdns = { provider: 'powerdns', server_url: 'http://127.0.0.1:8081', api_token: 'pdns-key', zone: 'example.com.' };

function problems(input: unknown, schema = strict): readonly string[] {
  return configErrorOf(() => validateConfig(schema, input)).problems;
}

function configErrorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

test('a minimal config gets every default', (t) => {
  const config = validateConfig(strict, { base_domain: 'Example.COM.', admin_key: adminKey, dns: cloudflare });
  t.is(config.base_domain, 'example.com');
  t.is(config.bind, '0.0.0.0');
  t.is(config.port, 8443);
  t.deepEqual(config.dns, { ...cloudflare, api_url: cloudflareApiUrl });
  t.deepEqual(config.acme, {
    directory_url: letsEncryptDirectories.letsencrypt,
    cas: [{ directory_url: letsEncryptDirectories.letsencrypt, accept_terms: false }],
    fallback_after: 3,
    accept_terms: false,
    key_type: 'ecdsa-p256',
    reuse_csr: false,
    certificate_budget: { certificates: 50, window_hours: 168 },
    order_budget: { orders: 300, window_hours: 3 },
    duplicate_budget: { certificates: 5, window_hours: 168 },
    retry_backoff_seconds: 120,
  });
  t.deepEqual(config.propagation, { timeout_seconds: 120 });
  t.deepEqual(config.notify, { channels: [], retry_seconds: 30, give_up_after_hours: 24 });
  t.is(config.tls, undefined);
  t.deepEqual(dnsDuties(config), { acme: config.dns, records: config.dns });
});

test('a full config: split providers, named directory, nameservers, tls by domain, webhook', (t) => {
  const config = validateConfig(strict, {
    base_domain: 'example.com',
    admin_key: adminKey,
    bind: '127.0.0.1',
    port: 0,
    dns_acme: cloudflare,
    dns_records: powerdns,
    acme: {
      directory_url: 'letsencrypt-staging',
      email: 'ops@example.com',
      ca_bundle: '/etc/pebble/root.pem',
      key_type: 'rsa-2048',
      certificate_budget: { certificates: 300 },
    },
    propagation: { nameservers: ['127.0.0.1:5353', '[::1]:53', 'ns1.example.net', '2001:db8::53'], timeout_seconds: 30 },
    tls: { domain: 'Panel' },
    notify: { webhook_url: 'https://hooks.example.net/certhub' },
  });
  t.is(config.acme.directory_url, letsEncryptDirectories['letsencrypt-staging']);
  t.deepEqual(config.acme.certificate_budget, { certificates: 300, window_hours: 168 });
  t.deepEqual(config.propagation.nameservers, [
    { host: '127.0.0.1', port: 5353 },
    { host: '::1', port: 53 },
    { host: 'ns1.example.net', port: 53 },
    { host: '2001:db8::53', port: 53 },
  ]);
  t.deepEqual(config.tls, { domain: 'panel.example.com' });
  t.is(dnsDuties(config)?.acme.provider, 'cloudflare');
  t.is(dnsDuties(config)?.records.provider, 'powerdns');
  t.like(config.dns_records, { zone: 'example.com' });
});

test("acme.retry_backoff_seconds: 2 minutes by default; shorter only for a CA that is not Let's Encrypt", (t) => {
  const pebble = { directory_url: 'https://127.0.0.1:14000/dir', retry_backoff_seconds: 1 };
  t.is(validateConfig(strict, { base_domain: 'example.com', admin_key: adminKey, dns: cloudflare, acme: pebble }).acme.retry_backoff_seconds, 1);
  const lessThanTwoMinutes = "acme.retry_backoff_seconds must be at least 120 with Let's Encrypt, whose limit is 5 failed validations per hostname an hour";
  for (const directory_url of ['letsencrypt', 'letsencrypt-staging', letsEncryptDirectories.letsencrypt]) {
    t.deepEqual(problems({ base_domain: 'example.com', admin_key: adminKey, dns: cloudflare, acme: { directory_url, retry_backoff_seconds: 119 } }), [
      lessThanTwoMinutes,
    ]);
  }
  t.deepEqual(
    problems({ base_domain: 'example.com', admin_key: adminKey, dns: cloudflare, acme: { retry_backoff_seconds: 5 } }),
    [lessThanTwoMinutes],
    "the default directory is Let's Encrypt",
  );
  t.deepEqual(problems({ base_domain: 'example.com', admin_key: adminKey, dns: cloudflare, acme: { ...pebble, retry_backoff_seconds: 0 } }), [
    'acme.retry_backoff_seconds must be at least 1',
  ]);
  t.is(
    validateConfig(strict, { base_domain: 'example.com', admin_key: adminKey, dns: cloudflare, acme: { retry_backoff_seconds: 600 } }).acme
      .retry_backoff_seconds,
    600,
  );
});

test('DNS: one of dns or the pair is required, except in demo', (t) => {
  t.deepEqual(problems({ base_domain: 'example.com', admin_key: adminKey }), [
    'dns is required: a DNS provider (cloudflare or powerdns), or dns_acme and dns_records; only certhub run --demo runs without one',
  ]);
  const config = validateConfig(demo, { base_domain: 'example.com', admin_key: adminKey });
  t.is(dnsDuties(config), undefined);
  t.deepEqual(problems({ base_domain: 'example.com', admin_key: adminKey, dns_acme: cloudflare }), [
    'dns_records is required with dns_acme (the provider for A, AAAA and CNAME records)',
  ]);
  t.deepEqual(problems({ base_domain: 'example.com', admin_key: adminKey, dns: cloudflare, dns_records: powerdns }), [
    'dns_records cannot be used with dns: give dns (one provider) or dns_acme and dns_records (split), not both',
  ]);
});

test('provider objects: kind, required fields, foreign fields, zone holding the base domain', (t) => {
  const base = { base_domain: 'example.com', admin_key: adminKey };
  t.deepEqual(problems({ ...base, dns: { provider: 'route53' } }), ['dns.provider must be "cloudflare" or "powerdns"']);
  t.deepEqual(problems({ ...base, dns: { provider: 'cloudflare', api_token: 'x' } }), ['dns.zone_id must be a string']);
  t.deepEqual(problems({ ...base, dns: { ...cloudflare, zone: 'example.com' } }), ['dns.zone is not a known option']);
  t.regex(problems({ ...base, dns: { ...cloudflare, zone_id: 'example.com' } })[0] ?? '', /^dns\.zone_id must be the zone id .* not the zone name$/);
  t.deepEqual(problems({ ...base, dns: { ...powerdns, zone: 'other.org' } }), ['dns.zone is other.org, which does not hold base_domain example.com']);
  t.deepEqual(problems({ ...base, dns: { ...powerdns, server_url: 'ftp://x' } }), ['dns.server_url must be a valid url']);
  // The ACME provider may serve another zone: _acme-challenge names can be CNAMEs into it.
  t.notThrows(() => validateConfig(strict, { ...base, dns_acme: { ...powerdns, zone: 'acme.example.net' }, dns_records: powerdns }));
});

test('an admin key or metrics token below 128 bits is refused, naming the option and what it carries', (t) => {
  t.deepEqual(problems({ base_domain: 'example.com', admin_key: 'correct-horse-battery', metrics_token: 'a1B2c3D4e5F6g7H8', dns: cloudflare }), [
    'admin_key must carry at least 128 bits, and this one carries about 100 (21 characters × log2 of the alphabet they come from); certhub setup generates one, as does openssl rand -base64 32',
    'metrics_token must carry at least 128 bits, and this one carries about 95 (16 characters × log2 of the alphabet they come from); certhub setup generates one, as does openssl rand -base64 32',
  ]);
  t.notThrows(
    () =>
      validateConfig(strict, {
        base_domain: 'example.com',
        admin_key: '0123456789abcdef0123456789abcdef',
        metrics_token: 'Zx8_k2Lq-Pw4Nv7Ry1Tb3M',
        dns: cloudflare,
      }),
    '32 hexadecimal digits and 22 base64url characters pass',
  );
});

test('each section names its option path and rule', (t) => {
  const found = problems({
    base_domain: 'exa_mple.com',
    admin_key: 'short',
    bind: 'not an address',
    port: 70000,
    dns: cloudflare,
    acme: {
      directory_url: 'http://acme.example.com/dir',
      key_type: 'ed25519',
      email: 'nobody',
      ca_bundle: 'root.pem',
      certificate_budget: { certificates: 0 },
    },
    propagation: { nameservers: ['127.0.0.1:99999', 'bad host:53'], timeout_seconds: 0 },
    notify: { webhook_url: 'mailto:ops@example.com' },
    domian: 'x',
  });
  t.deepEqual(found, [
    'base_domain has the label "exa_mple", but labels hold only letters, digits and hyphens, and neither start nor end with a hyphen',
    'admin_key must carry at least 128 bits, and this one carries about 23 (5 characters × log2 of the alphabet they come from); certhub setup generates one, as does openssl rand -base64 32',
    'bind must be an IP address or a host name',
    'port must be at most 65535',
    'acme.directory_url must be an https:// URL of an ACME directory, or one of "letsencrypt", "letsencrypt-staging", "zerossl", "google", "google-staging"',
    'acme.email must be a valid email',
    'acme.ca_bundle must be an absolute path',
    'acme.key_type must be one of "ecdsa-p256", "ecdsa-p384", "rsa-2048", "rsa-3072", "rsa-4096"',
    'acme.certificate_budget.certificates must be at least 1',
    'propagation.nameservers[0] must be host:port, e.g. 192.0.2.53:53, [2001:db8::53]:53 or ns1.example.net',
    'propagation.nameservers[1] must be host:port, e.g. 192.0.2.53:53, [2001:db8::53]:53 or ns1.example.net',
    'propagation.timeout_seconds must be at least 1',
    'notify.webhook_url must be a valid url',
    'domian is not a known option',
  ]);
});

test('a mistyped key gets the likely one, as every outpost config does', (t) => {
  t.deepEqual(problems({ base_domain: 'example.com', admin_key: adminKey, propogation: {} }, demo), [
    'propogation is not a known option (did you mean propagation?)',
  ]);
  t.deepEqual(problems({ base_domain: 'example.com', admin_key: adminKey, acme: { emial: 'ops@example.com' } }, demo), [
    'acme.emial is not a known option (did you mean email?)',
  ]);
});

test('tls: files or one of its own domains, not both, not half', (t) => {
  const base = { base_domain: 'example.com', admin_key: adminKey, dns: cloudflare };
  t.deepEqual(validateConfig(strict, { ...base, tls: { cert_file: '/etc/c.pem', key_file: '/etc/k.pem' } }).tls, {
    cert_file: '/etc/c.pem',
    key_file: '/etc/k.pem',
  });
  t.deepEqual(problems({ ...base, tls: { cert_file: '/etc/c.pem' } }), ['tls.key_file is required with tls.cert_file']);
  t.deepEqual(problems({ ...base, tls: { cert_file: '/etc/c.pem', key_file: '/etc/k.pem', domain: 'panel' } }), [
    'tls takes either cert_file and key_file or domain, not both',
  ]);
  t.deepEqual(problems({ ...base, tls: {} }), ["tls needs cert_file and key_file, or domain (one of certhub's own subdomains)"]);
  t.deepEqual(problems({ ...base, tls: { domain: 'panel.other.org' } }), [
    'tls.domain must be one of certhub\'s own subdomains: name "panel.other.org" is not under the base domain example.com',
  ]);
});

test('the base domain needs two labels', (t) => {
  t.deepEqual(problems({ base_domain: 'localhost', admin_key: adminKey }, demo), ['base_domain must have at least 2 labels (e.g. example.com)']);
  t.deepEqual(problems({ admin_key: adminKey }, demo), ['base_domain must be a string']);
});

test('powerdns: an http:// server_url off loopback is refused unless insecure_http allows it (the API key would travel in clear)', (t) => {
  const base = { base_domain: 'example.com', admin_key: adminKey };
  t.deepEqual(problems({ ...base, dns: { ...powerdns, server_url: 'http://192.0.2.53:8081' } }), [
    'dns.server_url is http:// to 192.0.2.53:8081, off loopback: the API key would travel in clear; use https://, or set insecure_http: true in this provider',
  ]);
  t.deepEqual(problems({ ...base, dns_acme: cloudflare, dns_records: { ...powerdns, server_url: 'http://pdns.example.net' } }).length, 1);
  for (const server_url of ['http://127.0.0.1:8081', 'http://[::1]:8081', 'http://localhost:8081', 'https://pdns.example.net']) {
    t.notThrows(() => validateConfig(strict, { ...base, dns: { ...powerdns, server_url } }), server_url);
  }
  t.like(validateConfig(strict, { ...base, dns: { ...powerdns, server_url: 'http://192.0.2.53:8081', insecure_http: true } }).dns, { insecure_http: true });
});

test('acme.cas: CAs in order, each with its own settings; the single-CA form is a list of one', (t) => {
  const base = { base_domain: 'example.com', admin_key: adminKey, dns: cloudflare };
  const eab = { kid: 'kid-1', hmac_key: 'zWNDZM6eQGHWpSRTPal5eIUYFTu7EajVIoguysqZ9wG44nMEtx3MUAsUDkMTQ12W' };
  const config = validateConfig(strict, {
    ...base,
    acme: {
      accept_terms: true,
      ca_bundle: '/etc/certhub/ca.pem',
      fallback_after: 2,
      cas: [
        { directory_url: 'letsencrypt', profile: 'shortlived' },
        { directory_url: 'zerossl', eab, accept_terms: false, ca_bundle: '/etc/certhub/zerossl.pem' },
      ],
    },
  });
  t.deepEqual(config.acme.cas, [
    { directory_url: letsEncryptDirectories.letsencrypt, accept_terms: true, profile: 'shortlived', ca_bundle: '/etc/certhub/ca.pem' },
    { directory_url: 'https://acme.zerossl.com/v2/DV90', eab, accept_terms: false, ca_bundle: '/etc/certhub/zerossl.pem' },
  ]);
  t.is(config.acme.directory_url, letsEncryptDirectories.letsencrypt, 'the first CA is where the single-CA form reads');
  t.is(config.acme.fallback_after, 2);
  t.deepEqual(validateConfig(strict, { ...base, acme: { directory_url: 'letsencrypt-staging', accept_terms: true } }).acme.cas, [
    { directory_url: letsEncryptDirectories['letsencrypt-staging'], accept_terms: true },
  ]);
  t.deepEqual(problems({ ...base, acme: { directory_url: 'letsencrypt', profile: 'classic', cas: [{ directory_url: 'letsencrypt' }] } }), [
    'acme.directory_url cannot be used with cas: give it in each entry of acme.cas that needs it',
    'acme.profile cannot be used with cas: give it in each entry of acme.cas that needs it',
  ]);
  t.deepEqual(problems({ ...base, acme: { cas: [{ directory_url: 'letsencrypt' }, { directory_url: 'google' }] } }), [
    'acme.cas[1].eab is required by https://dv.acme-v02.api.pki.goog/directory: that CA registers an account only with the key identifier (kid) and HMAC key (hmac_key) it gives you',
  ]);
  t.deepEqual(problems({ ...base, acme: { directory_url: 'zerossl' } }), [
    'acme.eab is required by https://acme.zerossl.com/v2/DV90: that CA registers an account only with the key identifier (kid) and HMAC key (hmac_key) it gives you',
  ]);
  t.deepEqual(problems({ ...base, acme: { cas: [] } }), ['acme.cas must have at least 1 entries']);
  t.deepEqual(problems({ ...base, acme: { cas: [{ directory_url: 'https://ca.example.net/dir', retry: 1 }], fallback_after: 0 } }), [
    'acme.cas[0].retry is not a known option',
    'acme.fallback_after must be at least 1',
  ]);
});
