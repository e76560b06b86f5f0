// What to fetch, from the command line (`-s -t -d`) or from a Fetch JSON file exported by the certhub
// panel (the flat one-domain form or the `domains` map), checked with the panel's own schemas so a
// file that the panel exports is accepted unchanged. A problem names the option or the key path.
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { hostNameProblem, normalizeName } from '../../../actors/domains/names.js';
import { isLoopbackOnly } from '../../../actors/sampler/ports.js';
import { fetchManySchema, fetchOneSchema } from '../../config/agent-exports.js';
import { loadConfigFile, validateConfig } from '../../config/load.js';
import { ConfigError } from '../../errors.js';

export interface FetchTarget {
  server: URL;
  /** A full name or a label, lower case, as the server is asked for it. */
  domain: string;
  token: string;
}

export interface FetchFlags {
  server?: string;
  token?: string;
  domain?: string;
}

const flagNames = { server: '-s, --server', token: '-t, --token', domain: '-d, --domain' } as const;

/** The one target of `-s URL -t TOKEN -d DOMAIN`; every missing or bad flag is named. */
export function targetFromFlags(flags: FetchFlags): FetchTarget {
  const missing = (Object.keys(flagNames) as (keyof typeof flagNames)[]).filter((key) => flags[key] === undefined).map((key) => `${flagNames[key]} is required (or give a Fetch JSON file with -c FILE)`);
  if (missing.length > 0) throw new ConfigError(missing);
  let checked: z.output<typeof fetchOneSchema>;
  try {
    checked = validateConfig(fetchOneSchema, { server: flags.server, domain: flags.domain, token: flags.token });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(error.problems.map((problem) => problem.replace(/^(server|domain|token)\b/, (key) => flagNames[key as keyof typeof flagNames])));
  }
  return { server: new URL(checked.server), domain: checkedDomain(checked.domain, flagNames.domain), token: checked.token };
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
      return names.map((name) => ({ server: new URL(config.server), domain: checkedDomain(name, `domains.${name}`), token: config.domains[name]?.token ?? '' }));
    }
    const config = validateConfig(fetchOneSchema, input);
    return [{ server: new URL(config.server), domain: checkedDomain(config.domain, 'domain'), token: config.token }];
  } catch (error) {
    if (error instanceof ConfigError) throw inFile(error.problems);
    throw error;
  }
}

/** The domain as the server is asked for it; it also names a folder on disk, so it must be a host name. */
function checkedDomain(domain: string, where: string): string {
  const name = normalizeName(domain);
  const problem = hostNameProblem(name, 1);
  if (problem !== undefined) throw new ConfigError([`${where} ${problem}`]);
  return name;
}

/** The warning for a server reached over plain HTTP beyond this machine, where the token and key cross the network in clear. */
export function plainHttpWarning(server: URL): string | undefined {
  if (server.protocol !== 'http:') return undefined;
  const host = server.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || isLoopbackOnly(host)) return undefined;
  return `warning: ${server.origin} is plain http:// to another machine: the token and the private key cross the network in clear; use the server's https:// address`;
}

/** The warning for a Fetch JSON file (it holds tokens) that other users may read. */
export async function openFileWarning(path: string): Promise<string | undefined> {
  const mode = (await stat(path)).mode & 0o777;
  if ((mode & 0o077) === 0) return undefined;
  return `warning: ${path} (mode ${mode.toString(8).padStart(4, '0')}) holds tokens and other users can read it; chmod 600 ${path}`;
}
