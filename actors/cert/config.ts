// certhub's `config.json` (in the data directory): the spec's fields (base_domain, admin_key, bind,
// port, dns or dns_acme + dns_records) and what a real deployment needs besides (acme, propagation,
// tls, notify). `certhub run --demo` accepts a config without any DNS provider.
import { isAbsolute } from 'node:path';
import { isIP } from 'node:net';
import { z } from 'zod';
import { parseDomainName } from './domains/names.js';
import { defaultMaxDomains } from './domains/limits.js';
import { defaultBackoff } from './domains/backoff.js';
import { allowedHosts, bindAddress, port, positiveInteger, trustedProxies } from '../../src/config/rules.js';

export const letsEncryptDirectories = {
  letsencrypt: 'https://acme-v02.api.letsencrypt.org/directory',
  'letsencrypt-staging': 'https://acme-staging-v02.api.letsencrypt.org/directory',
} as const;

export const cloudflareApiUrl = 'https://api.cloudflare.com/client/v4';

import { estimatedSecretBits, minimumSecretBits } from '../../src/crypto/secret-strength.js';
import { keyTypes } from '../../src/jobs/key-types.js';
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
  provider: z.literal('cloudflare'),
  /** An API token with Zone.DNS edit permission on the zone (not the global API key). */
  api_token: secretText,
  zone_id: z
    .string()
    .min(1)
    .refine((id) => !id.includes('.'), { message: 'must be the zone id (32 hexadecimal characters, on the zone\'s overview page in the dashboard), not the zone name' }),
  /** The API's base; only a test double changes it. */
  api_url: httpUrl.default(cloudflareApiUrl),
});

const powerdnsSchema = z
  .strictObject({
    provider: z.literal('powerdns'),
    /** The PowerDNS webserver, e.g. http://127.0.0.1:8081 (the API lives under /api/v1). */
    server_url: httpUrl,
    api_token: secretText,
    zone: domainName,
    /** Allow an http:// server_url off loopback, where the API key travels in clear. */
    insecure_http: z.boolean().default(false),
  })
  .superRefine((powerdns, context) => {
    if (!URL.canParse(powerdns.server_url)) return;
    const url = new URL(powerdns.server_url);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (url.protocol === 'http:' && !isLoopbackOnly(host) && !powerdns.insecure_http) {
      context.addIssue({ code: 'custom', path: ['server_url'], message: `is http:// to ${url.host}, off loopback: the API key would travel in clear; use https://, or set insecure_http: true in this provider` });
    }
  });

export const dnsProviderSchema = z.discriminatedUnion('provider', [cloudflareSchema, powerdnsSchema], {
  error: (issue) => (issue.code === 'invalid_union' ? 'must be "cloudflare" or "powerdns"' : undefined),
});
export type DnsProviderConfig = z.output<typeof dnsProviderSchema>;

/** A nameserver to check propagation at (also the setup wizard's answer): `host:port`, `[v6]:port`, or a bare address (port 53). */
export const nameserver = z.string().transform((value, context) => {
  const match = /^\[([0-9a-fA-F:.]+)\](?::(\d{1,5}))?$/.exec(value) ?? (isIP(value) === 6 ? [value, value] : /^([^:[\]]+)(?::(\d{1,5}))?$/.exec(value));
  const host = match?.[1] ?? '';
  const portNumber = match?.[2] === undefined ? 53 : Number(match[2]);
  const hostValid = isIP(host) !== 0 || hostNameProblem(normalizeName(host), 1) === undefined;
  if (match === null || !hostValid || portNumber < 1 || portNumber > 65535) {
    context.addIssue({ code: 'custom', message: 'must be host:port, e.g. 192.0.2.53:53, [2001:db8::53]:53 or ns1.example.net' });
    return z.NEVER;
  }
  return { host, port: portNumber };
});

export const directoryUrl = z.string().transform((value, context) => {
  if (value in letsEncryptDirectories) return letsEncryptDirectories[value as keyof typeof letsEncryptDirectories];
  // RFC 8555 §6.1: ACME is spoken over HTTPS only.
  if (z.url({ protocol: /^https$/ }).safeParse(value).success) return value;
  context.addIssue({ code: 'custom', message: 'must be an https:// URL of an ACME directory, "letsencrypt" or "letsencrypt-staging"' });
  return z.NEVER;
});

const budgetSchema = z.strictObject({
  /** New certificates (renewals exempt) for names under base_domain per window: Let's Encrypt allows 50 a week. */
  certificates: positiveInteger.max(1_000_000).default(50),
  window_hours: positiveInteger.max(24 * 366).default(168),
});

const acmeSchema = z.strictObject({
  directory_url: directoryUrl.default(letsEncryptDirectories.letsencrypt),
  email: z.email().optional(),
  /** Extra CA certificates (PEM) to trust for the directory's TLS, e.g. Pebble's. */
  ca_bundle: absolutePath.optional(),
  key_type: z.enum(keyTypes).default('ecdsa-p256'),
  certificate_budget: budgetSchema.prefault({}),
  /**
   * The delay before the first retry after a failed order, doubled per failure in a row up to 6 h
   * (domains/backoff.ts). Below 2 minutes only for a CA without Let's Encrypt's limit of 5 failed
   * validations per hostname an hour (a private CA, Pebble in tests).
   */
  retry_backoff_seconds: positiveInteger.max(3600).default(defaultBackoff.baseMs / 1000),
});

/** Let's Encrypt's limit on failed validations: the default backoff keeps a failing domain under it. */
function refuseFastRetriesAtLetsEncrypt(acme: z.output<typeof acmeSchema>, context: z.RefinementCtx): void {
  const letsEncrypt = (Object.values(letsEncryptDirectories) as string[]).includes(acme.directory_url);
  const least = defaultBackoff.baseMs / 1000;
  if (letsEncrypt && acme.retry_backoff_seconds < least) {
    context.addIssue({ code: 'custom', path: ['acme', 'retry_backoff_seconds'], message: `must be at least ${least} with Let's Encrypt, whose limit is 5 failed validations per hostname an hour` });
  }
}

const propagationSchema = z.strictObject({
  /** Where to check that challenge records are visible; default: the zone's authoritative nameservers. */
  nameservers: z.array(nameserver).min(1).optional(),
  timeout_seconds: positiveInteger.max(3600).default(120),
});

const tlsSchema = z
  .strictObject({
    cert_file: absolutePath.optional(),
    key_file: absolutePath.optional(),
    /** One of certhub's own domains: served with its managed certificate, renewed in place. */
    domain: z.string().min(1).optional(),
  })
  .superRefine((tls, context) => {
    const files = tls.cert_file !== undefined || tls.key_file !== undefined;
    if (files && tls.domain !== undefined) context.addIssue({ code: 'custom', message: 'takes either cert_file and key_file or domain, not both' });
    else if (!files && tls.domain === undefined) context.addIssue({ code: 'custom', message: 'needs cert_file and key_file, or domain (one of certhub\'s own subdomains)' });
    else if (files && tls.cert_file === undefined) context.addIssue({ code: 'custom', path: ['cert_file'], message: 'is required with tls.key_file' });
    else if (files && tls.key_file === undefined) context.addIssue({ code: 'custom', path: ['key_file'], message: 'is required with tls.cert_file' });
  });

const notifySchema = z.strictObject({
  /** Receives a JSON POST on a failure and when a certificate is within 7 days of expiry. */
  webhook_url: httpUrl.optional(),
});

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
    context.addIssue({ code: 'custom', message: `must carry at least ${minimumSecretBits} bits, and this one carries about ${bits} (${[...secret].length} characters × log2 of the alphabet they come from); certhub setup generates one, as does openssl rand -base64 32` });
  }
});

/** The schema of config.json; with `demo`, the DNS sections may be left out. */
export function certConfigSchema(options: CertSchemaOptions) {
  return z
    .strictObject({
      base_domain: domainName,
      admin_key: strongSecret,
      /** A bearer token that reads /metrics and nothing else, for Prometheus (docs/operations.md, Metrics). */
      metrics_token: strongSecret.optional(),
      bind: bindAddress.default('0.0.0.0'),
      port: port.default(8443),
      dns: dnsProviderSchema.optional(),
      dns_acme: dnsProviderSchema.optional(),
      dns_records: dnsProviderSchema.optional(),
      acme: acmeSchema.prefault({}),
      propagation: propagationSchema.prefault({}),
      tls: tlsSchema.optional(),
      /** Reverse proxies (IP addresses) whose `X-Forwarded-For` says who the client is, for failure limits and logs. */
      trusted_proxies: trustedProxies,
      /** Plain HTTP off loopback without `tls` (else certhub serves HTTPS with a self-signed certificate). */
      insecure_http: z.boolean().default(false),
      /** Host names the server answers besides loopback ones (docs/certhub.md). */
      allowed_hosts: allowedHosts,
      notify: notifySchema.prefault({}),
      /** Adds past this many domains are refused (409); the default is the count the benchmarks measure. */
      max_domains: positiveInteger.max(1_000_000).default(defaultMaxDomains),
    })
    .superRefine((config, context) => {
      const split = config.dns_acme !== undefined || config.dns_records !== undefined;
      if (config.dns !== undefined && split) {
        context.addIssue({ code: 'custom', path: [config.dns_acme === undefined ? 'dns_records' : 'dns_acme'], message: 'cannot be used with dns: give dns (one provider) or dns_acme and dns_records (split), not both' });
      } else if (split) {
        if (config.dns_acme === undefined) context.addIssue({ code: 'custom', path: ['dns_acme'], message: 'is required with dns_records (the provider for ACME challenge records)' });
        if (config.dns_records === undefined) context.addIssue({ code: 'custom', path: ['dns_records'], message: 'is required with dns_acme (the provider for A, AAAA and CNAME records)' });
      } else if (config.dns === undefined && !options.demo) {
        context.addIssue({ code: 'custom', path: ['dns'], message: 'is required: a DNS provider (cloudflare or powerdns), or dns_acme and dns_records; only certhub run --demo runs without one' });
      }
      const records = config.dns_records ?? config.dns;
      if (records?.provider === 'powerdns' && config.base_domain !== records.zone && !config.base_domain.endsWith(`.${records.zone}`)) {
        context.addIssue({ code: 'custom', path: [config.dns === undefined ? 'dns_records' : 'dns', 'zone'], message: `is ${records.zone}, which does not hold base_domain ${config.base_domain}` });
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
