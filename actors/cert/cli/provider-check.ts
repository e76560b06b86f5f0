// The setup wizard tries each DNS provider's credentials before it writes them, through the providers'
// own code (so it sees what certhub run would): PowerDNS must answer for the zone with the key;
// Cloudflare must verify the token, let it read the zone and change its records. A failure is said in the provider's
// words (which option to check), so a wrong key is found at setup and not at the first order.
import { CloudflareProvider } from '../dns/providers/cloudflare.js';
import { excerpt, providerFetch } from '../dns/providers/http.js';
import { PowerDnsProvider } from '../dns/providers/powerdns.js';
import { cloudflareApiUrl } from '../config.js';
import type { ProviderDraft } from './provider-questions.js';

/** One API request of the check; a wizard waits for it, so less than certhub run's 10 s. */
const checkTimeoutMs = 5000;

export type CredentialCheck = { outcome: 'passed'; said: string; warnings: string[] } | { outcome: 'failed'; problem: string };

/** The credentials left to fill in later: with any, there is nothing to try. */
export function missingCredentials(draft: ProviderDraft): string[] {
  const required = draft.provider === 'cloudflare' ? ['api_token', 'zone_id'] : ['server_url', 'api_token', 'zone'];
  return required.filter((field) => draft[field] === undefined);
}

/**
 * Tries `draft`'s credentials. `baseDomain` must be in the provider's zone when it writes the
 * subdomains' records (`writesRecords`); a challenge-only provider may hold a zone the challenges are
 * delegated to.
 */
export async function checkProviderCredentials(draft: ProviderDraft, baseDomain: string, writesRecords: boolean): Promise<CredentialCheck> {
  const missing = missingCredentials(draft);
  if (missing.length > 0) throw new Error(`${missing.join(' and ')} are still to fill in: nothing to try`);
  try {
    return draft.provider === 'cloudflare' ? await checkCloudflare(draft, baseDomain, writesRecords) : await checkPowerDns(draft, baseDomain, writesRecords);
  } catch (error) {
    return { outcome: 'failed', problem: error instanceof Error ? error.message : String(error) };
  }
}

async function checkPowerDns(draft: ProviderDraft, baseDomain: string, writesRecords: boolean): Promise<CredentialCheck> {
  const zone = draft.zone!;
  const provider = new PowerDnsProvider({ serverUrl: draft.server_url!, apiToken: draft.api_token!, zone, timeoutMs: checkTimeoutMs });
  // The provider's start-up check reads the zone with the key: 401/403, 404 and no answer each name their option.
  const warnings = await provider.warnings();
  if (writesRecords && !holds(zone, baseDomain))
    return { outcome: 'failed', problem: `powerdns: zone ${zone} does not hold the base domain ${baseDomain}: check zone` };
  return { outcome: 'passed', said: `PowerDNS at ${draft.server_url} answers for zone ${zone} with that key`, warnings };
}

async function checkCloudflare(draft: ProviderDraft, baseDomain: string, writesRecords: boolean): Promise<CredentialCheck> {
  const apiUrl = draft.api_url ?? cloudflareApiUrl;
  const verified = await verifyCloudflareToken(apiUrl, draft.api_token!);
  if (verified !== undefined) return { outcome: 'failed', problem: verified };
  const provider = new CloudflareProvider({ apiToken: draft.api_token!, zoneId: draft.zone_id!, apiUrl, timeoutMs: checkTimeoutMs });
  const zone = await provider.zoneName();
  if (writesRecords && !holds(zone, baseDomain))
    return { outcome: 'failed', problem: `cloudflare: zone ${draft.zone_id} is ${zone}, which does not hold the base domain ${baseDomain}: check zone_id` };
  const missing = await provider.missingDnsWrite();
  if (missing !== undefined) return { outcome: 'failed', problem: missing };
  return { outcome: 'passed', said: `Cloudflare verifies the token, it reads zone ${zone} and may change its records`, warnings: [] };
}

/**
 * Cloudflare's `GET /user/tokens/verify`: undefined when the token is active, else what is wrong
 * (developers.cloudflare.com/fundamentals/api/troubleshooting: "confirming that the response returns
 * "status": "active"").
 */
async function verifyCloudflareToken(apiUrl: string, token: string): Promise<string | undefined> {
  const url = `${apiUrl.replace(/\/+$/, '')}/user/tokens/verify`;
  const response = await providerFetch('cloudflare', url, { method: 'GET', headers: { Authorization: `Bearer ${token}` } }, checkTimeoutMs);
  let answer: { success?: unknown; result?: { status?: unknown } | null; errors?: { code?: number; message?: string }[] } | undefined;
  try {
    answer = JSON.parse(response.body) as typeof answer;
  } catch {
    answer = undefined;
  }
  const status = answer?.result?.status;
  if (response.status === 200 && answer?.success === true && status === 'active') return undefined;
  if (response.status === 200 && typeof status === 'string')
    return `cloudflare: the API token is ${status}, not active: make a new one (Zone > DNS > Edit) and give it as api_token`;
  const errors = (answer?.errors ?? []).map((error) => `${error.code ?? '?'} ${error.message ?? ''}`.trim());
  return `cloudflare: the API token was refused (HTTP ${response.status}, ${errors.length === 0 ? excerpt(response.body) : errors.join('; ')}): check api_token`;
}

function holds(zone: string, name: string): boolean {
  return name === zone || name.endsWith(`.${zone}`);
}
