// certhub's `config.json` (in the data directory): the spec's fields (base_domain, admin_key, bind,
// port, dns or dns_acme + dns_records) and what a real deployment needs besides (acme, propagation,
// tls, notify). `certhub run --demo` accepts a config without any DNS provider.
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { parseDomainName } from './domains/names.js';
import { defaultMaxDomains } from './domains/limits.js';
import { defaultBackoff } from './domains/backoff.js';
import { allowedHosts, bindAddress, port, positiveInteger, trustedProxies } from '../../src/config/rules.js';
import { directoryNames, directoryUrl, isLetsEncrypt, namedDirectories, requiresExternalAccount } from './acme/directories.js';
import { eabSchema } from './acme/eab.js';
import { profileNamePattern } from './acme/profiles.js';
import { notifySchema } from './notify/schema.js';
import { probesSchema } from './hosts/probe-schema.js';
import { hostPort } from './host-port.js';

/** Let's Encrypt's two directories (all the names `acme.directory_url` knows: acme/directories.ts). */
export const letsEncryptDirectories = {
  letsencrypt: namedDirectories.letsencrypt,
  'letsencrypt-staging': namedDirectories['letsencrypt-staging'],
} as const;

export const cloudflareApiUrl = 'https://api.cloudflare.com/client/v4';

import { estimatedSecretBits, minimumSecretBits } from '../../src/crypto/secret-strength.js';
import { keyTypes } from './key-types.js';
import { isLoopbackOnly } from '../../src/net/address.js';
import { hostNameProblem, normalizeName } from '../../src/net/host-names.js';

const secretText = z.string().min(1);
const httpUrl = z.url({ protocol: /^https?$/ });
const absolutePath = z.string().refine((path) => isAbsolute(path), { message: 'must be an absolute path' });

/** A domain name (lower case, no trailing dot) of at least two labels. */
const domainName = z.string().transform((value, context) => {
  const name = normalizeName(value);
  const problem = hostNameProblem(name);
  if (problem === undefined) return name;
  context.addIssue({ code: 'custom', message: `${problem}` });
  return z.NEVER;
});

const cloudflareSchema = z.strictObject({
  provider: z.literal('cloudflare').describe('Cloudflare DNS.'),
  api_token: secretText.describe('An API token with Zone.DNS edit permission on the zone (not the global API key).'),
  zone_id: z
    .string()
    .min(1)
    .refine((id) => !id.includes('.'), {
      message: "must be the zone id (32 hexadecimal characters, on the zone's overview page in the dashboard), not the zone name",
    })
    .describe("The zone id: 32 hexadecimal characters, on the zone's overview page in the dashboard (not the zone name)."),
  api_url: httpUrl.default(cloudflareApiUrl).describe("The API's base; only a test double changes it."),
});

const powerdnsSchema = z
  .strictObject({
    provider: z.literal('powerdns').describe('A PowerDNS authoritative server, through its HTTP API.'),
    server_url: httpUrl.describe('The PowerDNS webserver, e.g. http://127.0.0.1:8081 (the API lives under /api/v1).'),
    api_token: secretText.describe("The API key (PowerDNS's api-key setting)."),
    zone: domainName.describe('The zone holding base_domain, e.g. example.net.'),
    insecure_http: z.boolean().default(false).describe('Allow an http:// server_url off loopback, where the API key travels in clear.'),
  })
  .superRefine((powerdns, context) => {
    if (!URL.canParse(powerdns.server_url)) return;
    const url = new URL(powerdns.server_url);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (url.protocol === 'http:' && !isLoopbackOnly(host) && !powerdns.insecure_http) {
      context.addIssue({
        code: 'custom',
        path: ['server_url'],
        message: `is http:// to ${url.host}, off loopback: the API key would travel in clear; use https://, or set insecure_http: true in this provider`,
      });
    }
  });

export const dnsProviderSchema = z.discriminatedUnion('provider', [cloudflareSchema, powerdnsSchema], {
  error: (issue) => (issue.code === 'invalid_union' ? 'must be "cloudflare" or "powerdns"' : undefined),
});
export type DnsProviderConfig = z.output<typeof dnsProviderSchema>;

/** A nameserver to check propagation at (also the setup wizard's answer): `host:port`, `[v6]:port`, or a bare address (port 53). */
export const nameserver = hostPort(53, '192.0.2.53:53, [2001:db8::53]:53 or ns1.example.net');

export { directoryUrl };

/** An ACME profile's name (acme/profiles.ts), in the config and the admin API. */
export const profileName = z
  .string()
  .refine((name) => profileNamePattern.test(name), { message: 'must be a profile name the CA lists, e.g. classic, tlsserver or shortlived' });

const budgetSchema = z
  .strictObject({
    certificates: positiveInteger
      .max(1_000_000)
      .default(50)
      .describe("New certificates (renewals exempt) for names under base_domain per window: Let's Encrypt allows 50 a week."),
    window_hours: positiveInteger
      .max(24 * 366)
      .default(168)
      .describe('The window certificates are counted in.'),
  })
  .describe('How many new certificates certhub orders in a window; an add past it waits for the next slot.');

const orderBudgetSchema = z
  .strictObject({
    orders: positiveInteger
      .max(1_000_000)
      .default(300)
      .describe("Orders per account per window, renewals and retries included: Let's Encrypt allows 300 in 3 hours."),
    window_hours: positiveInteger
      .max(24 * 366)
      .default(3)
      .describe('The window orders are counted in.'),
  })
  .describe('How many orders certhub starts in a window; an order past it waits for the next slot.');

const duplicateBudgetSchema = z
  .strictObject({
    certificates: positiveInteger
      .max(1_000_000)
      .default(5)
      .describe("Certificates for one name per window, renewals included: Let's Encrypt allows 5 per exact set of names a week."),
    window_hours: positiveInteger
      .max(24 * 366)
      .default(168)
      .describe('The window certificates for one name are counted in.'),
  })
  .describe('How many certificates certhub orders for one name in a window; a renewal, renew-now or re-key past it waits for the next slot.');

const termsAgreement = z
  .boolean()
  .describe(
    "Agreement to the terms of service the CA's directory names (meta.termsOfService): certhub registers the ACME account at such a CA only with true, and tells the CA it agreed. certhub setup shows the terms' URL and writes true after a yes.",
  );
const caProfile = profileName
  .optional()
  .describe(
    "The ACME profile ordered for a domain that names none (e.g. Let's Encrypt's classic, tlsserver or shortlived); checked against the profiles the CA's directory lists, and not sent to a CA that lists none. Default: the CA's default profile.",
  );
const preferredChain = z
  .string()
  .min(1)
  .optional()
  .describe("The common name of the issuer the certificate chain should end with, when the CA offers alternate chains; the CA's default chain otherwise.");
const caBundle = absolutePath.optional().describe("Extra CA certificates (PEM file, absolute path) to trust for the directory's TLS, e.g. Pebble's.");

/** One CA of `acme.cas`: what is particular to a CA and its account. */
const caSchema = z
  .strictObject({
    directory_url: directoryUrl.describe(`The CA's ACME directory: an https:// URL, or one of ${directoryNames.map((name) => `"${name}"`).join(', ')}.`),
    eab: eabSchema.optional(),
    accept_terms: termsAgreement.optional().describe("Agreement to this CA's terms of service (meta.termsOfService); default: acme.accept_terms."),
    profile: caProfile,
    preferred_chain: preferredChain,
    ca_bundle: caBundle.describe("Extra CA certificates (PEM file, absolute path) to trust for this directory's TLS; default: acme.ca_bundle."),
  })
  .describe('A CA certificates are ordered from, with its own ACME account in the data directory.');

/** A CA as the rest of certhub reads it: `acme.cas` with its defaults filled in, or the single-CA form as a list of one. */
export interface CaConfig {
  directory_url: string;
  eab?: z.output<typeof eabSchema>;
  accept_terms: boolean;
  profile?: string;
  preferred_chain?: string;
  ca_bundle?: string;
}

function externalAccountIssue(directory: string, path: (string | number)[]) {
  return {
    code: 'custom' as const,
    path,
    message: `is required by ${directory}: that CA registers an account only with the key identifier (kid) and HMAC key (hmac_key) it gives you`,
  };
}

/** The fields of the single-CA form, which belong in each entry when `acme.cas` is given. */
const singleCaFields = ['directory_url', 'eab', 'profile', 'preferred_chain'] as const;

const acmeFields = z.strictObject({
  directory_url: directoryUrl
    .optional()
    .describe(
      `The ACME directory of the one CA, without acme.cas: an https:// URL, or one of ${directoryNames.map((name) => `"${name}"`).join(', ')}. Default: "letsencrypt".`,
    ),
  cas: z
    .array(caSchema)
    .min(1)
    .max(10)
    .optional()
    .describe(
      'CAs in order of preference, instead of directory_url (and eab, profile, preferred_chain, which each entry holds): a domain is ordered from the first, and from the next after fallback_after failed attempts in a row or a refusal that will not pass soon; every renewal starts again from the first.',
    ),
  fallback_after: positiveInteger.max(100).default(3).describe('Failed attempts in a row at one CA of acme.cas before a domain is ordered from the next.'),
  eab: eabSchema.optional(),
  accept_terms: termsAgreement.default(false),
  profile: caProfile,
  preferred_chain: preferredChain,
  email: z.email().optional().describe("The ACME accounts' contact address (the CA's expiry and policy mail)."),
  ca_bundle: caBundle,
  key_type: z.enum(keyTypes).default('ecdsa-p256').describe("The certificates' key type (and the account keys', when one is made)."),
  reuse_csr: z
    .boolean()
    .default(false)
    .describe(
      "For a domain whose key stays on its host (own_key): a renewal orders again with the host's last CSR, the same public key. false: a renewal that comes due waits for the host's next CSR (certhub-agent fetch --own-key sends one when asked).",
    ),
  certificate_budget: budgetSchema.prefault({}),
  order_budget: orderBudgetSchema.prefault({}),
  duplicate_budget: duplicateBudgetSchema.prefault({}),
  retry_backoff_seconds: positiveInteger
    .max(3600)
    .default(defaultBackoff.baseMs / 1000)
    .describe(
      "The delay before the first retry after a failed order, doubled per failure in a row up to 6 hours. Below 120 only for a CA without Let's Encrypt's limit of 5 failed validations per hostname an hour (a private CA, Pebble).",
    ),
});

const acmeSchema = acmeFields
  .superRefine((acme, context) => {
    if (acme.cas === undefined) {
      const directory = acme.directory_url ?? letsEncryptDirectories.letsencrypt;
      if (requiresExternalAccount(directory) && acme.eab === undefined) context.addIssue(externalAccountIssue(directory, ['eab']));
      return;
    }
    for (const field of singleCaFields) {
      if (acme[field] !== undefined)
        context.addIssue({ code: 'custom', path: [field], message: 'cannot be used with cas: give it in each entry of acme.cas that needs it' });
    }
    acme.cas.forEach((ca, index) => {
      if (requiresExternalAccount(ca.directory_url) && ca.eab === undefined) context.addIssue(externalAccountIssue(ca.directory_url, ['cas', index, 'eab']));
    });
  })
  .transform((acme) => {
    const { directory_url, eab, profile, preferred_chain, cas, ...rest } = acme;
    const entries: z.output<typeof caSchema>[] = cas ?? [{ directory_url: directory_url ?? letsEncryptDirectories.letsencrypt, eab, profile, preferred_chain }];
    const listed = entries.map((entry): CaConfig => {
      const bundle = entry.ca_bundle ?? acme.ca_bundle;
      return {
        directory_url: entry.directory_url,
        ...(entry.eab === undefined ? {} : { eab: entry.eab }),
        accept_terms: entry.accept_terms ?? acme.accept_terms,
        ...(entry.profile === undefined ? {} : { profile: entry.profile }),
        ...(entry.preferred_chain === undefined ? {} : { preferred_chain: entry.preferred_chain }),
        ...(bundle === undefined ? {} : { ca_bundle: bundle }),
      };
    });
    const first = listed[0] as CaConfig;
    // The first CA's settings stay where the single-CA form reads them (the panel's CA, account rollover, setup).
    return {
      ...rest,
      directory_url: first.directory_url,
      ...(first.eab === undefined ? {} : { eab: first.eab }),
      ...(first.profile === undefined ? {} : { profile: first.profile }),
      ...(first.preferred_chain === undefined ? {} : { preferred_chain: first.preferred_chain }),
      cas: listed,
    };
  })
  .describe('The ACME CAs that issue the certificates.');

/** Let's Encrypt's limit on failed validations: the default backoff keeps a failing domain under it. */
function refuseFastRetriesAtLetsEncrypt(acme: z.output<typeof acmeSchema>, context: z.RefinementCtx): void {
  // The acme section's own transform has not run when one of its fields was refused: cas is then missing.
  const cas = acme.cas as readonly CaConfig[] | undefined;
  const letsEncrypt = cas?.some((ca) => isLetsEncrypt(ca.directory_url)) ?? false;
  const least = defaultBackoff.baseMs / 1000;
  if (letsEncrypt && acme.retry_backoff_seconds < least) {
    context.addIssue({
      code: 'custom',
      path: ['acme', 'retry_backoff_seconds'],
      message: `must be at least ${least} with Let's Encrypt, whose limit is 5 failed validations per hostname an hour`,
    });
  }
}

const propagationSchema = z
  .strictObject({
    nameservers: z
      .array(nameserver)
      .min(1)
      .optional()
      .describe("Where to check that challenge records are visible (host:port, [v6]:port or a bare address); default: the zone's authoritative nameservers."),
    timeout_seconds: positiveInteger.max(3600).default(120).describe('How long to wait for a challenge record to be visible before the order fails.'),
  })
  .describe('How certhub waits for DNS-01 challenge records to be visible before asking the CA to validate.');

const tlsSchema = z
  .strictObject({
    cert_file: absolutePath.optional().describe("certhub's own certificate chain (PEM file, absolute path), with key_file."),
    key_file: absolutePath.optional().describe('Its private key (PEM file, absolute path), with cert_file.'),
    domain: z.string().min(1).optional().describe("One of certhub's own domains, instead of the files: served with its managed certificate, renewed in place."),
  })
  .describe(
    'How certhub serves HTTPS: its own certificate files, or one of its domains. Without it, off loopback, certhub serves HTTPS with a self-signed certificate and prints its fingerprint.',
  )
  .superRefine((tls, context) => {
    const files = tls.cert_file !== undefined || tls.key_file !== undefined;
    if (files && tls.domain !== undefined) context.addIssue({ code: 'custom', message: 'takes either cert_file and key_file or domain, not both' });
    else if (!files && tls.domain === undefined)
      context.addIssue({ code: 'custom', message: "needs cert_file and key_file, or domain (one of certhub's own subdomains)" });
    else if (files && tls.cert_file === undefined) context.addIssue({ code: 'custom', path: ['cert_file'], message: 'is required with tls.key_file' });
    else if (files && tls.key_file === undefined) context.addIssue({ code: 'custom', path: ['key_file'], message: 'is required with tls.cert_file' });
  });

const hostsSchema = z
  .strictObject({
    stale_margin_seconds: positiveInteger
      .max(7 * 86_400)
      .default(300)
      .describe('A host that reports (certhub-agent) is stale once this long has passed after the next check it announced without a report.'),
    unserved_after_seconds: positiveInteger
      .max(90 * 86_400)
      .default(3600)
      .describe("A domain whose hosts report, none of them serving its newest certificate this long after it was issued, is flagged 'served nowhere'."),
  })
  .describe('How certhub judges the hosts that report which certificate they serve (docs/certhub.md, See which hosts serve what).');

export interface CertSchemaOptions {
  /** `certhub run --demo`: no DNS provider is needed (none is contacted). */
  demo: boolean;
}

/**
 * A secret the operator may choose (the admin key, the metrics token): refused below 128 bits as
 * src/crypto/secret-strength.ts estimates them, saying what it found and how to make a good one.
 */
const strongSecret = z.string().superRefine((secret, context) => {
  const bits = estimatedSecretBits(secret);
  if (bits < minimumSecretBits) {
    context.addIssue({
      code: 'custom',
      message: `must carry at least ${minimumSecretBits} bits, and this one carries about ${bits} (${[...secret].length} characters × log2 of the alphabet they come from); certhub setup generates one, as does openssl rand -base64 32`,
    });
  }
});

/** The schema of config.json; with `demo`, the DNS sections may be left out. */
export function certConfigSchema(options: CertSchemaOptions) {
  return z
    .strictObject({
      base_domain: domainName.describe('The domain whose subdomains certhub manages, e.g. certs.example.net: app adds app.certs.example.net.'),
      allow_apex: z
        .boolean()
        .default(false)
        .describe(
          "Whether a domain's names may hold base_domain itself (given as @) and the wildcard *.<base_domain>, which covers every name one level under it. Off: only names under base_domain, and wildcards under those.",
        ),
      admin_key: strongSecret.describe('The key of the admin panel and API (at least 128 bits; certhub setup generates one).'),
      metrics_token: strongSecret
        .optional()
        .describe('A bearer token that reads /metrics and nothing else, for Prometheus (at least 128 bits; docs/operations.md, Metrics).'),
      bind: bindAddress.default('0.0.0.0').describe('The address to bind (certhub run -H overrides it).'),
      port: port.default(8443).describe('The port (certhub run -p overrides it).'),
      dns: dnsProviderSchema
        .optional()
        .describe(
          "The DNS provider for every record: the domains' A, AAAA and CNAME records and the ACME challenge records. Required, unless dns_acme and dns_records split the two jobs (or certhub run --demo).",
        ),
      dns_acme: dnsProviderSchema.optional().describe('With dns_records, instead of dns: the provider that writes the _acme-challenge TXT records.'),
      dns_records: dnsProviderSchema.optional().describe("With dns_acme, instead of dns: the provider that writes the domains' A, AAAA and CNAME records."),
      acme: acmeSchema.prefault({}),
      propagation: propagationSchema.prefault({}),
      tls: tlsSchema.optional(),
      trusted_proxies: trustedProxies.describe('Reverse proxies (IP addresses) whose X-Forwarded-For says who the client is, for failure limits and logs.'),
      insecure_http: z
        .boolean()
        .default(false)
        .describe('Serve plain HTTP off loopback without tls (else certhub serves HTTPS with a self-signed certificate).'),
      allowed_hosts: allowedHosts.describe(
        'Host names (or IP addresses) the server answers besides loopback ones while it is bound to loopback; other names get 421.',
      ),
      notify: notifySchema.prefault({}),
      hosts: hostsSchema.prefault({}),
      probes: probesSchema.prefault({}),
      max_domains: positiveInteger
        .max(1_000_000)
        .default(defaultMaxDomains)
        .describe('Adds past this many domains are refused (409); the default is the count the benchmarks measure.'),
    })
    .superRefine((config, context) => {
      const split = config.dns_acme !== undefined || config.dns_records !== undefined;
      if (config.dns !== undefined && split) {
        context.addIssue({
          code: 'custom',
          path: [config.dns_acme === undefined ? 'dns_records' : 'dns_acme'],
          message: 'cannot be used with dns: give dns (one provider) or dns_acme and dns_records (split), not both',
        });
      } else if (split) {
        if (config.dns_acme === undefined)
          context.addIssue({ code: 'custom', path: ['dns_acme'], message: 'is required with dns_records (the provider for ACME challenge records)' });
        if (config.dns_records === undefined)
          context.addIssue({ code: 'custom', path: ['dns_records'], message: 'is required with dns_acme (the provider for A, AAAA and CNAME records)' });
      } else if (config.dns === undefined && !options.demo) {
        context.addIssue({
          code: 'custom',
          path: ['dns'],
          message: 'is required: a DNS provider (cloudflare or powerdns), or dns_acme and dns_records; only certhub run --demo runs without one',
        });
      }
      const records = config.dns_records ?? config.dns;
      if (records?.provider === 'powerdns' && config.base_domain !== records.zone && !config.base_domain.endsWith(`.${records.zone}`)) {
        context.addIssue({
          code: 'custom',
          path: [config.dns === undefined ? 'dns_records' : 'dns', 'zone'],
          message: `is ${records.zone}, which does not hold base_domain ${config.base_domain}`,
        });
      }
      refuseFastRetriesAtLetsEncrypt(config.acme, context);
      if (config.tls?.domain !== undefined) {
        try {
          parseDomainName(config.tls.domain, config.base_domain);
        } catch (error) {
          context.addIssue({ code: 'custom', path: ['tls', 'domain'], message: `must be one of certhub's own subdomains: ${(error as Error).message}` });
        }
      }
    })
    .transform((config) => {
      if (config.tls?.domain === undefined) return config;
      return { ...config, tls: { domain: parseDomainName(config.tls.domain, config.base_domain).name } };
    });
}

export type CertConfig = z.output<ReturnType<typeof certConfigSchema>>;

export interface DnsDuties {
  /** Writes the `_acme-challenge` TXT records. */
  acme: DnsProviderConfig;
  /** Writes the A, AAAA and CNAME records of the domains. */
  records: DnsProviderConfig;
}

/** Which provider does which job; undefined in demo without a DNS section. */
export function dnsDuties(config: CertConfig): DnsDuties | undefined {
  if (config.dns !== undefined) return { acme: config.dns, records: config.dns };
  if (config.dns_acme !== undefined && config.dns_records !== undefined) return { acme: config.dns_acme, records: config.dns_records };
  return undefined;
}
