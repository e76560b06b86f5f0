// Reading certhub's config at start: its mode checked first (it holds the admin key and the provider
// tokens), legacy keys migrated, then the file validated, every problem naming its option path (the
// CLI prints them and exits 2).
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../../src/errors.js';
import { loadConfigFile } from '../../src/config/load.js';
import { assertPrivateFile } from '../../src/config/private-file.js';
import { certConfigSchema, type CertConfig, type CertSchemaOptions } from './config.js';
import { migrateLegacyConfig, type LegacyMigration } from './config-legacy.js';
import { shellQuote } from '../../src/cli/shell-quote.js';
import { isBetaBuild } from '../../src/version.js';

export function certConfigPath(dataDir: string): string {
  return join(dataDir, 'config.json');
}

export interface LoadedCertConfig {
  config: Readonly<CertConfig>;
  /** Set when this start rewrote a legacy config (worth a log line). */
  migration: LegacyMigration | undefined;
}

export async function loadCertConfig(dataDir: string, options: CertSchemaOptions): Promise<LoadedCertConfig> {
  await assertConfigExists(dataDir);
  await assertPrivateFile(certConfigPath(dataDir), 'the admin key and the DNS provider tokens');
  const migration = await migrateLegacyConfig(dataDir);
  const config = await loadConfigFile(certConfigSchema(options), certConfigPath(dataDir));
  return { config, migration };
}

/** A data directory without config.json is one nobody set up yet: say how, not only ENOENT. */
async function assertConfigExists(dataDir: string): Promise<void> {
  const path = certConfigPath(dataDir);
  if (await configExists(path)) return;
  const demo = isBetaBuild ? ` (or certhub run -d ${shellQuote(dataDir)} --demo, which makes a demo config)` : '';
  throw new ConfigError([`${path} does not exist: run certhub setup -d ${shellQuote(dataDir)} first${demo}`]);
}

/** False only when the file is not there; any other failure is left to the reader, which says why. */
export async function configExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}
