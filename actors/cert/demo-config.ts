// The config.json of a demo certhub: a base domain that cannot be real (RFC 6761 reserves .test) and
// a new admin key. `outpost demo` writes one into its throw-away data directory; `certhub run --demo`
// into a data directory that has none yet, so `certhub run -d DIR --demo` works on an empty folder.
import { join } from 'node:path';
import { ensureSecretDirectory, writeSecretFile } from '../../src/store/secret.js';
import { newAdminKey } from './domains/token.js';

export const demoBaseDomain = 'demo.test';

/** Writes `dataDir/config.json` (0600, the folder 0700, made if missing) for a demo; returns its admin key. */
export async function writeDemoConfig(dataDir: string): Promise<string> {
  const adminKey = newAdminKey();
  await ensureSecretDirectory(dataDir);
  await writeSecretFile(join(dataDir, 'config.json'), `${JSON.stringify({ base_domain: demoBaseDomain, admin_key: adminKey }, null, 2)}\n`);
  return adminKey;
}
