// The wizard's questions about the certificate authority: its ACME directory, the CA bundle a private
// CA (Pebble) needs, and the nameservers that must show a challenge record before the CA is asked.
// Each answer is checked by the rule config.json is checked with, the bundle read as certhub run reads it.
import { isAbsolute } from 'node:path';
import { BadAnswer, type Prompter } from '../../../src/cli/prompt.js';
import { ConfigError } from '../../../src/errors.js';
import { directoryUrl, letsEncryptDirectories, nameserver } from '../config.js';
import { readCaBundle } from '../ca-bundle-file.js';

const none = 'none';

/** `letsencrypt`, `letsencrypt-staging` or an https:// URL, as config.json takes it. */
export function askAcmeDirectory(p: Prompter): Promise<string> {
  p.say('Certificate authority: letsencrypt, letsencrypt-staging (for trials: its certificates are not');
  p.say('trusted), or the https:// URL of another ACME directory (a private CA, e.g. Pebble).');
  const [defaultDirectory] = Object.keys(letsEncryptDirectories) as [keyof typeof letsEncryptDirectories];
  return p.ask('ACME directory', defaultDirectory, (answer) => {
    if (!directoryUrl.safeParse(answer).success)
      throw new BadAnswer(`please answer ${Object.keys(letsEncryptDirectories).join(' or ')}, or an https:// URL of an ACME directory`);
    return answer;
  });
}

/** The PEM file of the CA that signs a private CA's HTTPS; undefined for none (a public CA). */
export async function askCaBundle(p: Prompter): Promise<string | undefined> {
  for (;;) {
    const path = await p.ask("CA bundle (absolute path of the PEM that signs a private CA's HTTPS, e.g. Pebble's)", none, (answer) => {
      if (answer !== none && !isAbsolute(answer)) throw new BadAnswer(`please give an absolute path (from /), or ${none}`);
      return answer;
    });
    if (path === none) return undefined;
    try {
      await readCaBundle(path);
      return path;
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
