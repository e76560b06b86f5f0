// Configs written before the dns section existed kept the Cloudflare credentials in flat keys at the
// top level. The first start rewrites such a file in the current shape (`dns: {provider:
// "cloudflare", ...}`) and keeps the old one beside it as config.json.legacy.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../../src/errors.js';
import { writeSecretFile } from '../../src/store/secret.js';

/** The flat keys older configs used, by the field of the cloudflare provider they hold. */
export const legacyCloudflareKeys = {
  api_token: ['cloudflare_api_token', 'cloudflare_token', 'cf_api_token', 'cf_token', 'api_token'],
  zone_id: ['cloudflare_zone_id', 'cf_zone_id', 'zone_id'],
} as const;

const allLegacyKeys: readonly string[] = [...legacyCloudflareKeys.api_token, ...legacyCloudflareKeys.zone_id];

export interface LegacyMigration {
  /** The rewritten config.json. */
  configPath: string;
  /** Where the old file was kept. */
  legacyPath: string;
  /** The legacy keys that were found. */
  keys: string[];
}

/**
 * `input` in the current shape when it holds legacy keys, else undefined. The dns section takes the
 * place of the first legacy key, so the rest of the file keeps its order.
 */
export function migrateLegacyObject(input: unknown): { config: Record<string, unknown>; keys: string[] } | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  const old = input as Record<string, unknown>;
  const keys = Object.keys(old).filter((key) => allLegacyKeys.includes(key));
  if (keys.length === 0) return undefined;
  const problems: string[] = [];
  for (const section of ['dns', 'dns_acme', 'dns_records']) {
    if (section in old)
      problems.push(
        `${keys.join(', ')} (legacy Cloudflare ${keys.length === 1 ? 'key' : 'keys'}) cannot be used with ${section}: remove ${keys.length === 1 ? 'it' : 'them'}, or remove ${section}`,
      );
  }
  const field = (name: keyof typeof legacyCloudflareKeys): unknown => {
    const present = legacyCloudflareKeys[name].filter((key) => key in old);
    const values = new Set(present.map((key) => JSON.stringify(old[key])));
    if (present.length === 0)
      problems.push(
        `${keys.join(', ')} (legacy Cloudflare ${keys.length === 1 ? 'key' : 'keys'}) needs ${legacyCloudflareKeys[name][0]} too, or move both into a dns section`,
      );
    if (values.size > 1) problems.push(`${present.join(' and ')} disagree; keep one of them`);
    return present.length === 0 ? undefined : old[present[0] ?? ''];
  };
  const dns = { provider: 'cloudflare', api_token: field('api_token'), zone_id: field('zone_id') };
  if (problems.length > 0) throw new ConfigError(problems);
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(old)) {
    if (!allLegacyKeys.includes(key)) config[key] = value;
    else if (!('dns' in config)) config.dns = dns;
  }
  return { config, keys };
}

/**
 * Rewrites `<dir>/config.json` in the current shape if it holds legacy keys; undefined when there
 * was nothing to do (or no readable JSON: loading the config reports that). The old file is written
 * to config.json.legacy first, so a crash in between leaves the old config in place, to be migrated
 * again on the next start.
 */
export async function migrateLegacyConfig(dir: string): Promise<LegacyMigration | undefined> {
  const configPath = join(dir, 'config.json');
  const text = await readFile(configPath, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    return undefined;
  }
  let migrated: ReturnType<typeof migrateLegacyObject>;
  try {
    migrated = migrateLegacyObject(input);
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(error.problems.map((problem) => `${configPath}: ${problem}`));
    throw error;
  }
  if (migrated === undefined) return undefined;
  const legacyPath = `${configPath}.legacy`;
  await writeSecretFile(legacyPath, text);
  await writeSecretFile(configPath, `${JSON.stringify(migrated.config, null, 2)}\n`);
  return { configPath, legacyPath, keys: migrated.keys };
}
