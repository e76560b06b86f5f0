// What to fetch, from the command line (`-s -t -d`) or from a Fetch JSON file exported by the certhub
// panel (the flat one-domain form or the `domains` map), checked with the panel's own schemas so a
// file that the panel exports is accepted unchanged. A problem names the option or the key path.
import { z } from 'zod';
import { fetchManySchema, fetchOneSchema, maxServers, serverList } from '../agent-exports.js';
import { loadConfigFile, validateConfig } from '../../../src/config/load.js';
import { ConfigError } from '../../../src/errors.js';
import { isLoopbackOnly } from '../../../src/net/address.js';
import { hostNameProblem, normalizeName } from '../../../src/net/host-names.js';

export interface FetchTarget {
  /** The certhub servers, in the order they are tried (certhub-servers.ts). */
  servers: readonly URL[];
  /** The full name, lower case, as the server is asked for it. */
  domain: string;
  token: string;
  /** `sha256:<hex>` of certhub's own certificate: trusted instead of any CA (pinned-connection.ts). */
  pin?: string | undefined;
  /** Also write `combined.pem` (write-material.ts): the file's `combined_pem` or `--combined-pem`. */
  combinedPem?: boolean;
}

export interface FetchFlags {
  /** Every -s, each split at its commas. */
  server?: readonly string[];
  token?: string;
  domain?: string;
  pin?: string;
}

const flagNames = { server: '-s, --server', token: '-t, --token', domain: '-d, --domain', pin: '--pin' } as const;
const requiredFlags = ['server', 'token', 'domain'] as const;

/** The one target of `-s URL -t TOKEN -d DOMAIN` (-s given several times, or URLs with commas between); every missing or bad flag is named. */
export function targetFromFlags(flags: FetchFlags): FetchTarget {
  const missing = requiredFlags
    .filter((key) => flags[key] === undefined)
    .map((key) => `${flagNames[key]} is required (or give a Fetch JSON file with -c FILE)`);
  if (missing.length > 0) throw new ConfigError(missing);
  const servers = flags.server ?? [];
  if (servers.length > maxServers) throw new ConfigError([`${flagNames.server} takes at most ${maxServers} servers, not ${servers.length}`]);
  let checked: z.output<typeof fetchOneSchema>;
  try {
    const server = servers.length === 1 ? servers[0] : servers;
    checked = validateConfig(fetchOneSchema, { server, domain: flags.domain, token: flags.token, pin: flags.pin });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(
      error.problems.map((problem) =>
        problem
          .replace(/^server\[(\d+)\]/, (_, index: string) => `${flagNames.server} ${JSON.stringify(servers[Number(index)])}`)
          .replace(/^(server|domain|token|pin)\b/, (key) => flagNames[key as keyof typeof flagNames]),
      ),
    );
  }
  return { servers: urlsOf(checked.server), domain: checkedDomain(checked.domain, flagNames.domain), token: checked.token, ...pinOf(checked.pin) };
}

/** The targets of a Fetch JSON file: `{server, domain, token}` or `{server, domains: {name: {token}}}`. */
export async function targetsFromFile(path: string): Promise<FetchTarget[]> {
  const input = await loadConfigFile(z.looseObject({}), path);
  const inFile = (problems: readonly string[]) => new ConfigError(problems.map((problem) => `${path}: ${problem}`));
  try {
    if ('domains' in input) {
      const config = validateConfig(fetchManySchema, input);
      const names = Object.keys(config.domains);
      if (names.length === 0) throw new ConfigError(['domains must name at least one domain']);
      return names.map((name) => ({
        servers: urlsOf(config.server),
        domain: checkedDomain(name, `domains.${name}`),
        token: config.domains[name]?.token ?? '',
        ...pinOf(config.pin),
        ...combinedOf(config.combined_pem),
      }));
    }
    const config = validateConfig(fetchOneSchema, input);
    return [
      {
        servers: urlsOf(config.server),
        domain: checkedDomain(config.domain, 'domain'),
        token: config.token,
        ...pinOf(config.pin),
        ...combinedOf(config.combined_pem),
      },
    ];
  } catch (error) {
    if (error instanceof ConfigError) throw inFile(error.problems);
    throw error;
  }
}

/** The servers of a checked `server`, each once, in the order given. */
export function urlsOf(server: string | readonly string[]): URL[] {
  const hrefs = [...new Set(serverList(server).map((text) => new URL(text).href))];
  return hrefs.map((href) => new URL(href));
}

function combinedOf(combinedPem: boolean | undefined): { combinedPem?: boolean } {
  return combinedPem === true ? { combinedPem } : {};
}

function pinOf(pin: string | undefined): { pin?: string } {
  return pin === undefined ? {} : { pin };
}

/**
 * The domain as the server is asked for it; it also names a folder on disk, so it must be a host name,
 * and the full one: the certificate is checked against it (a label would match any `label.*`).
 */
function checkedDomain(domain: string, where: string): string {
  const name = normalizeName(domain);
  const problem = hostNameProblem(name, 2);
  if (problem !== undefined)
    throw new ConfigError([`${where} ${problem}${name.includes('.') ? '' : ': give the full name (app.example.net), as the certhub panel shows it'}`]);
  return name;
}

/**
 * The refusal of a server reached over plain HTTP beyond this machine, where the token and the key
 * would cross the network in clear (and anyone on the way could answer in the server's place);
 * `where` names the option. Undefined when allowed: https, loopback, or `insecure` given.
 */
export function plainHttpProblem(server: URL, where: string, insecure: boolean): string | undefined {
  if (insecure || !isRemotePlainHttp(server)) return undefined;
  return `${where} ${server.origin} is plain http:// to another machine: the token and the private key would cross the network in clear; use the server's https:// address (or --insecure-http to accept that)`;
}

/** Whether `server` is plain http:// to another machine than this one. */
export function isRemotePlainHttp(server: URL): boolean {
  if (server.protocol !== 'http:') return false;
  const host = server.hostname.replace(/^\[|\]$/g, '');
  return !isLoopbackOnly(host);
}
