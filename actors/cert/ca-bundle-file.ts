// acme.ca_bundle is read before any actor starts, as every file the config names: a missing or
// unreadable bundle is a config error (exit 2 naming the option), not an acme actor that crashes at
// each restart until the supervisor gives up.
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ConfigError } from '../../src/errors.js';

export async function checkCaBundle(configPath: string, path: string): Promise<void> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError([`${configPath}: acme.ca_bundle: ${path} cannot be read: ${(error as Error).message}`]);
  }
  try {
    new X509Certificate(text);
  } catch {
    throw new ConfigError([`${configPath}: acme.ca_bundle: ${path} holds no PEM certificate`]);
  }
}
