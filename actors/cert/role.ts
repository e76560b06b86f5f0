// The cert role (certhub): the domains actor owning every domain, token and certificate, and the
// HTTP front serving the certhub site from its replica. The role's own settings say where the data
// directory is; everything else is in that directory's config.json.
import { z } from 'zod';
import { actorRef, actorSpec } from '../../src/actor/kind.js';
import { dnsDuties, type CertConfig, type DnsDuties } from './config.js';
import { certConfigPath, loadCertConfig } from './config-load.js';
import { adminKeyNotice } from './admin-key-notice.js';
import { checkCaBundle } from './ca-bundle-file.js';
import { writeDemoConfig } from './demo-config.js';
import type { ActorSpec } from '../../src/actor/spec.js';
import { acmeActor } from './acme/kind.js';
import { defaultValidationPolling } from './acme/validation-deadline.js';
import { defaultIssuanceWait } from './acme/issuance-wait.js';
import { dnsActor } from './dns/kind.js';
import { bindAddress, port } from '../../src/config/rules.js';
import { ConfigError } from '../../src/errors.js';
import { makeTemporaryDir } from '../../src/store/temporary-dirs.js';
import { isBetaBuild, version } from '../../src/version.js';
import { domainReplicaTopic, domainsActor } from './domains/kind.js';
import { certhubServing } from './tls.js';
import { frontSpecs } from '../http-front/fronts.js';
import type { RoleDefinition } from '../../src/config/role.js';
import { siteRef } from '../../src/http/site.js';
import { certhubSite } from './site/kind.js';
import { formatHostPort } from '../../src/net/address.js';
import { certErrorTable } from './error-codes.js';
import { auditActor } from './audit/kind.js';
import { notifySettings } from './notify/settings.js';
import type { NotifySettings } from './notify/protocol.js';
import { inConfigFile } from '../../src/config/load.js';

export const certSchema = z
  .strictObject({
    data_dir: z
      .string()
      .min(1)
      .optional()
      .describe('The data directory: config.json, domains/, prefs.json (certhub setup -d DIR makes one). Left out only by `outpost demo`.'),
    demo: z.boolean().default(false).describe('Self-signed demo certificates, no DNS provider or CA contacted (beta builds only).'),
    bind: bindAddress.optional().describe("The address to bind, instead of config.json's bind (certhub run -H)."),
    port: port.optional().describe("The port, instead of config.json's port (certhub run -p); 0 picks a free one."),
  })
  .refine((settings) => settings.demo || settings.data_dir !== undefined, {
    path: ['data_dir'],
    message: "is required: the folder holding certhub's config.json (certhub setup -d DIR writes one)",
  });

export const certRole: RoleDefinition<typeof certSchema> = {
  name: 'cert',
  summary: 'certificate distribution server (certhub)',
  errors: certErrorTable,
  schema: certSchema,
  demoConfig: { demo: true, bind: '127.0.0.1', port: 0 },
  demo: {
    // The data directory is made before the start, so that the admin key can be printed beside the URL.
    prepare: async () => ({ demo: true, data_dir: await demoDataDir(), bind: '127.0.0.1', port: 0 }),
    started: async ({ data_dir }) => {
      if (data_dir === undefined) return { notes: [] };
      const { config } = await loadCertConfig(data_dir, { demo: true });
      return {
        notes: [
          `admin key: ${adminKeyNotice(config.admin_key, certConfigPath(data_dir), process.stdout.isTTY === true)} (a demo key, made for this run; the panel asks for it)`,
        ],
      };
    },
  },
  ownProcess: "certhub holds every domain's token and private key; run it in a process of its own (certhub run, certhub.service)",
  claims: ({ data_dir, bind, port }) => ({
    ports: bind === undefined || port === undefined ? [] : [{ host: bind, port, option: 'port' }],
    stores: data_dir === undefined ? [] : [{ path: data_dir, what: 'data directory' }],
  }),
  async actors(settings) {
    if (settings.demo && !isBetaBuild) throw new ConfigError([`roles.cert.demo is only offered by beta builds; outpost ${version} is a release`]);
    const dataDir = settings.data_dir ?? (settings.demo ? await demoDataDir() : undefined);
    if (dataDir === undefined) throw new Error('roles.cert.data_dir is checked by the schema');
    const { config } = await loadCertConfig(dataDir, { demo: settings.demo });
    return certActors(settings, dataDir, config);
  },
};

/**
 * The cert role for a config.json read and checked already: `certhub run` reads it once, for the
 * admin key it prints, and makes the beta check for its own --demo.
 */
export function certRoleWithConfig(dataDir: string, config: CertConfig): RoleDefinition<typeof certSchema> {
  return { ...certRole, actors: (settings) => certActors(settings, dataDir, config) };
}

async function certActors(settings: z.output<typeof certSchema>, dataDir: string, config: CertConfig): Promise<ActorSpec[]> {
  const duties = settings.demo ? undefined : dnsDuties(config);
  if (duties !== undefined) {
    for (const [index, ca] of config.acme.cas.entries()) {
      if (ca.ca_bundle === undefined) continue;
      const option = ca.ca_bundle === config.acme.ca_bundle ? 'acme.ca_bundle' : `acme.cas.${index}.ca_bundle`;
      await checkCaBundle(certConfigPath(dataDir), ca.ca_bundle, option);
    }
  }
  const domains = actorRef(domainsActor, 'cert/domains');
  const audit = actorRef(auditActor, 'cert/audit');
  const host = settings.bind ?? config.bind;
  const serving = await certhubServing(dataDir, config, host);
  let notify: NotifySettings | undefined;
  try {
    notify = settings.demo ? undefined : await notifySettings(config.notify);
  } catch (error) {
    throw inConfigFile(certConfigPath(dataDir), error);
  }
  const issuing = duties === undefined ? [] : issuingActors(dataDir, config, duties);
  const issuers = issuing.length === 0 ? undefined : { dns: dnsRef, acme: acmeRef, orderTimeoutMs: config.propagation.timeout_seconds * 1000 + orderMarginMs };
  const { certificates, window_hours } = config.acme.certificate_budget;
  const budget = issuers === undefined ? undefined : { certificates, windowMs: window_hours * 3_600_000 };
  const { order_budget: orders, duplicate_budget: duplicates } = config.acme;
  const caLimits =
    issuers === undefined
      ? undefined
      : {
          orders: orders.orders,
          ordersWindowMs: orders.window_hours * 3_600_000,
          duplicates: duplicates.certificates,
          duplicatesWindowMs: duplicates.window_hours * 3_600_000,
        };
  return [
    ...issuing,
    actorSpec(domainsActor, {
      ref: domains,
      role: 'cert',
      config: {
        dataDir,
        baseDomain: config.base_domain,
        demo: settings.demo,
        keyType: config.acme.key_type,
        maxDomains: config.max_domains,
        allowApex: config.allow_apex,
        retryBackoffMs: config.acme.retry_backoff_seconds * 1000,
        reuseCsr: config.acme.reuse_csr,
        hosts: { staleMarginMs: config.hosts.stale_margin_seconds * 1000, unservedAfterMs: config.hosts.unserved_after_seconds * 1000 },
        ...(config.probes.enabled
          ? {
              probes: {
                intervalMs: config.probes.interval_seconds * 1000,
                timeoutMs: config.probes.timeout_seconds * 1000,
                port: config.probes.port,
                addresses: config.probes.addresses,
              },
            }
          : {}),
        ...(issuers === undefined ? {} : { issuers }),
        ...(budget === undefined ? {} : { budget }),
        ...(caLimits === undefined ? {} : { caLimits }),
        ...(issuers === undefined ? {} : { fallback: { cas: config.acme.cas.map((ca) => ca.directory_url), fallbackAfter: config.acme.fallback_after } }),
        // `--demo` contacts no external service: no channel is handed to it.
        ...(notify === undefined ? {} : { notify }),
      },
      links: issuers === undefined ? [] : [dnsRef, acmeRef],
      // Every token and private key: the cert role's own fronts alone read it.
      topics: [domainReplicaTopic],
      // Loading 10,000 domains grew the default young generation to 34 MB that stayed resident.
      youngGenerationMb: 8,
    }),
    // Admin actions and material handed out, appended to audit.jsonl (audit/).
    actorSpec(auditActor, { ref: audit, role: 'cert', config: { dataDir } }),
    ...(await frontSpecs({
      role: 'cert',
      threads: 1,
      config: {
        host,
        port: settings.port ?? config.port,
        allowedHosts: config.allowed_hosts,
        site: siteRef(certhubSite, {
          domains,
          audit,
          baseDomain: config.base_domain,
          adminKey: config.admin_key,
          ...(config.metrics_token === undefined ? {} : { metricsToken: config.metrics_token }),
          secureCookies: serving.front !== undefined,
          demo: settings.demo,
          insecureHttp: serving.insecureHttp,
          trustedProxies: [...config.trusted_proxies],
          ...(serving.pin === undefined ? {} : { pin: serving.pin }),
          ...(serving.follow === undefined ? {} : { tls: serving.follow }),
          ...(issuers === undefined
            ? {}
            : { ca: { directoryUrl: config.acme.directory_url, ...(config.acme.profile === undefined ? {} : { profile: config.acme.profile }) } }),
        }),
        ...(serving.front === undefined ? {} : { tls: serving.front }),
      },
      links: [domains, audit],
      // The panel's live log.
      readsLogs: true,
    })),
  ];
}

const dnsRef = actorRef(dnsActor, 'cert/dns');
const acmeRef = actorRef(acmeActor, 'cert/acme');
/** What an order may take beyond waiting for propagation: the CA's validation and issuance (each up to its deadline), downloading. */
const orderMarginMs = defaultValidationPolling.deadlineMs + defaultIssuanceWait.deadlineMs + 120_000;

/** The actors that publish records and run ACME orders. */
function issuingActors(dataDir: string, config: CertConfig, duties: DnsDuties): ActorSpec[] {
  const nameservers = (config.propagation.nameservers ?? []).map(({ host, port }) => formatHostPort(host, port));
  return [
    actorSpec(dnsActor, { ref: dnsRef, role: 'cert', config: { records: duties.records, challenges: duties.acme } }),
    actorSpec(acmeActor, {
      ref: acmeRef,
      role: 'cert',
      config: {
        dataDir,
        cas: config.acme.cas.map((ca) => ({
          directoryUrl: ca.directory_url,
          ...(ca.eab === undefined ? {} : { eab: ca.eab }),
          acceptTerms: ca.accept_terms,
          ...(ca.profile === undefined ? {} : { profile: ca.profile }),
          ...(ca.preferred_chain === undefined ? {} : { preferredChain: ca.preferred_chain }),
          ...(ca.ca_bundle === undefined ? {} : { caBundleFile: ca.ca_bundle }),
        })),
        ...(config.acme.email === undefined ? {} : { email: config.acme.email }),
        keyType: config.acme.key_type,
        dns: dnsRef,
        nameservers,
        propagationTimeoutMs: config.propagation.timeout_seconds * 1000,
      },
      links: [dnsRef],
    }),
  ];
}

/** `outpost demo`: a fresh data directory with a demo config, removed when the process exits. */
async function demoDataDir(): Promise<string> {
  const dir = await makeTemporaryDir('certhub-demo-');
  await writeDemoConfig(dir);
  return dir;
}
