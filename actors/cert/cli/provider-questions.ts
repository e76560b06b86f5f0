// The wizard's questions about DNS providers: which kind, and its credentials, tried before they are
// written (provider-check.ts). Any credential may be skipped; the provider is then written without it,
// untried, and `certhub run` names what is missing.
import { z } from 'zod';
import { BadAnswer, type Prompter } from '../../../src/cli/prompt.js';
import { hostNameProblem, normalizeName } from '../../../src/net/host-names.js';
import { checkProviderCredentials, missingCredentials } from './provider-check.js';

export type ProviderKind = 'cloudflare' | 'powerdns';

/** A provider section as written to config.json; skipped fields are left out. */
export type ProviderDraft = { provider: ProviderKind } & Record<string, string>;

const skip = 'skip';

export interface ProviderQuestion {
  kind: ProviderKind;
  /** What the provider is for, in words. */
  duty: string;
  /** The default zone, and the name the records provider's zone must hold. */
  baseDomain: string;
  /** It writes the subdomains' records (not only challenges): its zone must hold the base domain. */
  writesRecords: boolean;
  /** Cloudflare's API base when it is not the public one (a test double): written as api_url. */
  cloudflareApiUrl: string | undefined;
}

/**
 * A provider's credentials, tried before they are kept. When the provider refuses them, the wizard
 * says why and asks them again, or stops (throws) without writing anything.
 */
export async function askCheckedProvider(p: Prompter, question: ProviderQuestion): Promise<ProviderDraft> {
  for (;;) {
    const draft = await askProvider(p, question);
    const missing = missingCredentials(draft);
    if (missing.length > 0) {
      p.say(`  Not tried: ${missing.join(' and ')} still to fill in.`);
      return draft;
    }
    p.say('  Trying these credentials...');
    const check = await checkProviderCredentials(draft, question.baseDomain, question.writesRecords);
    switch (check.outcome) {
      case 'passed':
        p.say(`  OK: ${check.said}.`);
        for (const warning of check.warnings) p.say(`  Warning: ${warning}`);
        return draft;
      case 'failed':
        p.say(`  Failed: ${check.problem}`);
        if (!(await p.yesNo("  Give this provider's answers again?", true))) throw new Error(`${check.problem}; nothing was written`);
        break;
      default:
        throw new Error(`unexpected credential check ${JSON.stringify(check satisfies never)}`);
    }
  }
}

/** Credentials of a provider of `kind`; `duty` says what it is for, `baseDomain` is the default zone. */
async function askProvider(p: Prompter, { kind, duty, baseDomain, cloudflareApiUrl }: ProviderQuestion): Promise<ProviderDraft> {
  const draft: ProviderDraft = { provider: kind };
  const keep = (field: string, value: string | undefined) => {
    if (value !== undefined && value !== '') draft[field] = value;
  };
  if (kind === 'cloudflare') {
    p.say(`  Cloudflare (${duty}): an API token with Zone > DNS > Edit on the zone, and the zone's id`);
    p.say("  (both on the zone's overview page in the dashboard).");
    keep('api_token', await p.secret('  Cloudflare API token (Enter to fill in later)'));
    keep('zone_id', await p.ask('  Cloudflare zone id', skip, (answer) => optional(answer, checkZoneId)));
    keep('api_url', cloudflareApiUrl);
  } else {
    p.say(`  PowerDNS (${duty}): the URL of its webserver (api=yes), its API key and the zone.`);
    keep('server_url', await p.ask('  PowerDNS server URL', 'http://127.0.0.1:8081', checkHttpUrl));
    keep('api_token', await p.secret('  PowerDNS API key (Enter to fill in later)'));
    keep('zone', await p.ask('  PowerDNS zone', baseDomain, checkZone));
  }
  return draft;
}

function optional(answer: string, check: (answer: string) => string): string | undefined {
  return answer === skip ? undefined : check(answer);
}

function checkZoneId(answer: string): string {
  if (answer.includes('.')) throw new BadAnswer('that looks like the zone name; the zone id is 32 hexadecimal characters (zone overview page)');
  return answer;
}

function checkHttpUrl(answer: string): string {
  if (!z.url({ protocol: /^https?$/ }).safeParse(answer).success) throw new BadAnswer('please give an http:// or https:// URL, e.g. http://127.0.0.1:8081');
  return answer;
}

function checkZone(answer: string): string {
  const zone = normalizeName(answer);
  const problem = hostNameProblem(zone);
  if (problem !== undefined) throw new BadAnswer(`the zone ${problem}`);
  return zone;
}
