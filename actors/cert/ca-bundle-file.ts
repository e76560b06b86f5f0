// acme.ca_bundle (and each CA's own in acme.cas) is read before any actor starts, as every file the config names
// (src/config/named-file.ts): a missing or unreadable bundle is a config error (exit 2 naming the
// option), not an acme actor that crashes at each restart. `certhub setup` asks with the same check.
import { X509Certificate } from 'node:crypto';
import { ConfigError } from '../../src/errors.js';
import { inConfigFile } from '../../src/config/load.js';
import { readNamedFile } from '../../src/config/named-file.js';

/** Throws a ConfigError naming `option` (acme.ca_bundle or a CA's own; not the config file) when `path` is no readable PEM certificate. */
export async function readCaBundle(path: string, option = 'acme.ca_bundle'): Promise<string> {
  const text = await readNamedFile(option, path);
  try {
    new X509Certificate(text);
  } catch {
    throw new ConfigError([`${option}: ${path} holds no PEM certificate`]);
  }
  return text;
}

export async function checkCaBundle(configPath: string, path: string, option = 'acme.ca_bundle'): Promise<void> {
  try {
    await readCaBundle(path, option);
  } catch (error) {
    throw inConfigFile(configPath, error);
  }
}
