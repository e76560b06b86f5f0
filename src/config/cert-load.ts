// Reading certhub's config at start: legacy keys migrated first, then the file validated, every
// problem naming its option path (the CLI prints them and exits 2).
import { join } from 'node:path';
import { loadConfigFile } from './load.js';
import { certConfigSchema, type CertConfig, type CertSchemaOptions } from './cert.js';
import { migrateLegacyConfig, type LegacyMigration } from './cert-legacy.js';

export function certConfigPath(dataDir: string): string {
  return join(dataDir, 'config.json');
}

export interface LoadedCertConfig {
  config: Readonly<CertConfig>;
  /** Set when this start rewrote a legacy config (worth a log line). */
  migration: LegacyMigration | undefined;
}

export async function loadCertConfig(dataDir: string, options: CertSchemaOptions): Promise<LoadedCertConfig> {
  const migration = await migrateLegacyConfig(dataDir);
  const config = await loadConfigFile(certConfigSchema(options), certConfigPath(dataDir));
  return { config, migration };
}
