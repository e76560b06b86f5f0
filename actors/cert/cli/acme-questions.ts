// The wizard's questions about the certificate authority: its ACME directory (a CA certhub knows by
// name, or a URL), the CA bundle a private CA (Pebble) needs, what the directory says of itself (its
// terms of service, which the user must agree to; its profiles; whether it needs an external account
// binding, whose key identifier and HMAC key are then asked), and the nameservers that must show a
// challenge record before the CA is asked. Each answer is checked by the rule config.json is checked
// with, the bundle read as certhub run reads it.
import { isAbsolute } from 'node:path';
import { BadAnswer, type Prompter } from '../../../src/cli/prompt.js';
import { ConfigError } from '../../../src/errors.js';
import { directoryNames, directoryUrl, namedDirectories, requiresExternalAccount, resolveDirectoryUrl } from '../acme/directories.js';
import { readDirectoryMeta, type DirectoryMeta } from '../acme/directory-meta.js';
import { hmacKeyProblem, type EabConfig } from '../acme/eab.js';
import { nameserver } from '../config.js';
import { readCaBundle } from '../ca-bundle-file.js';

const none = 'none';
const skip = 'skip';

/** A name of acme/directories.ts or an https:// URL, as config.json takes it. */
export function askAcmeDirectory(p: Prompter): Promise<string> {
  p.say('Certificate authority: letsencrypt, letsencrypt-staging (for trials: its certificates are not');
  p.say('trusted), zerossl, google, google-staging (these three ask for an external account key, from');
  p.say('their dashboard or gcloud), or the https:// URL of another ACME directory (a private CA, e.g. Pebble).');
  const [defaultDirectory] = directoryNames;
  return p.ask('ACME directory', defaultDirectory, (answer) => {
    if (!directoryUrl.safeParse(answer).success) throw new BadAnswer(`please answer ${directoryNames.join(', ')}, or an https:// URL of an ACME directory`);
    return answer;
  });
}

/** The PEM file of the CA that signs a private CA's HTTPS, and its text; undefined for none (a public CA). */
export async function askCaBundle(p: Prompter): Promise<{ path: string; pem: string } | undefined> {
  for (;;) {
    const path = await p.ask("CA bundle (absolute path of the PEM that signs a private CA's HTTPS, e.g. Pebble's)", none, (answer) => {
      if (answer !== none && !isAbsolute(answer)) throw new BadAnswer(`please give an absolute path (from /), or ${none}`);
      return answer;
    });
    if (path === none) return undefined;
    try {
      return { path, pem: await readCaBundle(path) };
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      p.say(`  ${error.problems.join('; ')}`);
    }
  }
}

/** `host:port` list, or undefined for the zone's authoritative nameservers. */
export function askNameservers(p: Prompter): Promise<string[] | undefined> {
  p.say('Propagation: before the CA is asked, certhub waits until these nameservers show the challenge');
  p.say("record. Enter: the zone's authoritative nameservers (its NS records), right for a public zone.");
  const authoritative = 'authoritative';
  return p.ask('Nameservers (host:port, separated by commas)', authoritative, (answer) => {
    if (answer === authoritative) return undefined;
    const servers = answer.split(/[\s,]+/).filter((server) => server !== '');
    const wrong = servers.filter((server) => !nameserver.safeParse(server).success);
    if (servers.length === 0 || wrong.length > 0)
      throw new BadAnswer(`${wrong.join(', ') || 'that'} is not host:port, e.g. 192.0.2.53:53, [2001:db8::53]:53 or ns1.example.net`);
    return servers;
  });
}

/** The directory's meta, or undefined (said) when it cannot be read: the wizard goes on, and says what to fill in. */
export async function readDirectory(p: Prompter, nameOrUrl: string, caBundlePem: string | undefined): Promise<DirectoryMeta | undefined> {
  const url = resolveDirectoryUrl(nameOrUrl);
  p.say(`  Reading ${url}...`);
  try {
    return await readDirectoryMeta(url, caBundlePem);
  } catch (error) {
    p.say(`  Could not read it: ${error instanceof Error ? error.message : String(error)}.`);
    p.say('  Its terms of service and profiles are not shown; config.json is written without acme.accept_terms.');
    return undefined;
  }
}

/**
 * The external account binding a CA asks for: always for the named CAs that need one and when the
 * directory says so; for another URL whose directory could not be read, when the user says it does.
 * undefined: none, or left to fill in later.
 */
export async function askExternalAccount(p: Prompter, nameOrUrl: string, meta: DirectoryMeta | undefined): Promise<EabConfig | undefined> {
  const url = resolveDirectoryUrl(nameOrUrl);
  const named = Object.values(namedDirectories).includes(url as never);
  const needed = requiresExternalAccount(url) || meta?.externalAccountRequired === true;
  if (!needed && (named || meta !== undefined)) return undefined;
  if (needed) {
    p.say('This CA registers an account only with an external account binding: the key identifier (kid) and');
    p.say('the HMAC key it gives you (ZeroSSL: the dashboard, Developer; Google: gcloud publicca external-account-keys create).');
  } else if (!(await p.yesNo('Does this CA ask for an external account binding (a key identifier and an HMAC key)?', false))) return undefined;
  const kid = await p.ask('  EAB key identifier (kid)', skip, (answer) => answer);
  if (kid === skip) {
    p.say('  Not written: acme.eab still to fill in.');
    return undefined;
  }
  for (;;) {
    const hmacKey = await p.secret('  EAB HMAC key (Enter to fill in later)');
    if (hmacKey === '') {
      p.say('  Not written: acme.eab still to fill in.');
      return undefined;
    }
    const problem = hmacKeyProblem(hmacKey);
    if (problem === undefined) return { kid, hmac_key: hmacKey };
    p.say(`  The HMAC key ${problem}`);
  }
}

/** A profile the directory lists, or undefined for the CA's default (and for a CA that lists none). */
export async function askProfile(p: Prompter, meta: DirectoryMeta | undefined): Promise<string | undefined> {
  const offered = meta?.profiles;
  if (offered === null || offered === undefined) return undefined;
  p.say('Profiles the CA offers (the kind of certificate ordered; a domain may name its own later):');
  for (const [name, description] of Object.entries(offered)) p.say(`  ${name}${description === '' ? '' : `: ${description}`}`);
  const fallback = 'default';
  return p.ask("Profile (Enter: the CA's default)", fallback, (answer) => {
    if (answer === fallback) return undefined;
    if (!Object.hasOwn(offered, answer)) throw new BadAnswer(`please answer one of ${Object.keys(offered).join(', ')}, or press Enter for the CA's default`);
    return answer;
  });
}

/**
 * The CA's terms of service, shown and agreed to: true after a yes; a no stops the wizard (throws), since
 * the CA registers no account without the agreement. undefined when the CA names no terms.
 */
export async function askTermsAgreement(p: Prompter, meta: DirectoryMeta | undefined): Promise<true | undefined> {
  const terms = meta?.termsOfService;
  if (terms === undefined) return undefined;
  p.say(`The CA's terms of service: ${terms}`);
  p.say('certhub registers the ACME account at its first order, telling the CA you agree to them.');
  const agreed = await p.ask("Do you agree to the CA's terms of service? (yes/no)", undefined, (answer) => {
    if (/^(y|yes)$/i.test(answer)) return true;
    if (/^(n|no)$/i.test(answer)) return false;
    throw new BadAnswer('please answer yes or no (there is no default)');
  });
  if (!agreed) throw new Error("the CA's terms of service were not agreed to, and the CA registers no account without that; nothing was written");
  return true;
}
