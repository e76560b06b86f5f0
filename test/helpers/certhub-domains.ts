// What the end-to-end certhub tests share: the provider sections of config.json for the real stack
// (PowerDNS directly, or the Cloudflare double writing into it), adding a domain through the admin
// API, waiting for its status, and reading what DNS holds for it.
import type { ExecutionContext } from 'ava';
import type { DomainView } from '../../actors/cert/domains/protocol.js';
import type { CloudflareDouble } from '../cert/fixtures/cloudflare/cloudflare-double.js';
import type { CertStack } from './cert-stack.js';
import { certhubDataDir, startCerthub, type RunningCerthub } from './certhub.js';
import { eventually } from './fixture-host.js';
import type { PowerDnsServer, RRset } from '../../benchmarks/third-party/powerdns.js';

export type { DomainView };

export function powerdnsSection(powerdns: PowerDnsServer, apiToken = powerdns.apiKey): object {
  return { provider: 'powerdns', server_url: powerdns.apiUrl, api_token: apiToken, zone: powerdns.zone };
}

export function cloudflareSection(cloudflare: CloudflareDouble, apiToken = cloudflare.token): object {
  return { provider: 'cloudflare', api_token: apiToken, zone_id: cloudflare.zoneId, api_url: cloudflare.apiUrl };
}

export interface StackSections {
  acme: { directory_url: string; ca_bundle: string; accept_terms: true };
  propagation: { nameservers: string[]; timeout_seconds: number };
}

/** The acme and propagation sections for the stack: Pebble as the CA, propagation checked at `nameservers` (default PowerDNS). */
export function stackSections(stack: CertStack, nameservers: string[] = [stack.powerdns.nameserver], timeoutSeconds = 60): StackSections {
  return {
    acme: { directory_url: stack.pebble.directoryUrl, ca_bundle: stack.pebble.caFile, accept_terms: true },
    propagation: { nameservers, timeout_seconds: timeoutSeconds },
  };
}

/** A real certhub on the stack: records and challenges in PowerDNS, Pebble as the CA, propagation checked at PowerDNS for 30 s at most. */
export async function startCerthubOnStack(t: ExecutionContext, stack: CertStack): Promise<RunningCerthub> {
  const dataDir = await certhubDataDir(t, { dns: powerdnsSection(stack.powerdns), ...stackSections(stack, [stack.powerdns.nameserver], 30) });
  return startCerthub(t, dataDir, []);
}

/** POST /api/admin/domains; fails the test's promise unless certhub answers 201. */
export async function addDomain(server: RunningCerthub, name: string, target: string): Promise<DomainView> {
  const response = await server.admin('api/admin/domains', { method: 'POST', body: { name, target } });
  const body = await response.text();
  if (response.status !== 201) throw new Error(`adding ${name} -> ${target} answered HTTP ${response.status}: ${body}`);
  return JSON.parse(body) as DomainView;
}

export async function getDomain(server: RunningCerthub, name: string): Promise<DomainView> {
  const response = await server.admin(`api/admin/domains/${name}`);
  if (response.status !== 200) throw new Error(`GET ${name} answered HTTP ${response.status}: ${await response.text()}`);
  return (await response.json()) as DomainView;
}

/**
 * Polls the domain until `until` holds for it; returns its last view either way, so the test's
 * assertion shows what it was. `timeoutMs` bounds a hang, it is not a timing assertion.
 */
export async function waitForDomain(server: RunningCerthub, name: string, until: (domain: DomainView) => boolean, timeoutMs: number): Promise<DomainView> {
  let last: DomainView | undefined;
  await eventually(
    async () => {
      last = await getDomain(server, name);
      return until(last);
    },
    timeoutMs,
    100,
  );
  if (last === undefined) throw new Error(`${name} was never read within ${timeoutMs} ms`);
  return last;
}

/** The domain once it is issued or in error. */
export function settled(domain: DomainView): boolean {
  return domain.status === 'issued' || domain.status === 'error';
}

/** The RRsets PowerDNS holds at `name` or under it (its `_acme-challenge`), sorted by name and type. */
export async function recordsOf(powerdns: PowerDnsServer, name: string): Promise<RRset[]> {
  const all = await powerdns.rrsets();
  return all
    .filter((rrset) => rrset.name === name || rrset.name.endsWith(`.${name}`))
    .sort((a, b) => `${a.name} ${a.type}`.localeCompare(`${b.name} ${b.type}`));
}

/** GET /api/cert/<name> with `token`. */
export function fetchCertificate(server: RunningCerthub, name: string, token: string): Promise<Response> {
  return fetch(`${server.url}api/cert/${name}`, { headers: { authorization: `Bearer ${token}` } });
}
