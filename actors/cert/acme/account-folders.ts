// Where each CA's account lives in the data directory. Every CA of acme.cas has an account of its
// own (account.key, account.json, and the orders left open there, orders.json) in a folder of its own:
// `acme/` belongs to the CA its account.json names (or, while it names none, to the first CA), so a
// data directory made for one CA keeps its account; every other CA has `acme/accounts/<host>-<hash>/`,
// named by its directory URL, so that reordering acme.cas moves no account.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { CaIdentity } from './protocol.js';

export function acmeFolder(dataDir: string): string {
  return join(dataDir, 'acme');
}

/** The folder of a CA that does not own `acme/`. */
export function separateAccountFolder(dataDir: string, directoryUrl: string): string {
  const host = URL.canParse(directoryUrl) ? new URL(directoryUrl).host.replace(/[^A-Za-z0-9.-]/g, '_') : 'ca';
  const hash = createHash('sha256').update(directoryUrl).digest('hex').slice(0, 12);
  return join(acmeFolder(dataDir), 'accounts', `${host}-${hash}`);
}

/** The account `<folder>/account.json` names, when it names one. */
export async function storedIdentity(folder: string): Promise<CaIdentity | undefined> {
  try {
    const stored = JSON.parse(await readFile(join(folder, 'account.json'), 'utf8')) as { directory_url?: unknown; account_url?: unknown };
    if (typeof stored.directory_url !== 'string' || typeof stored.account_url !== 'string') return undefined;
    return { directoryUrl: stored.directory_url, accountUrl: stored.account_url };
  } catch {
    return undefined;
  }
}

/** The account folder of each directory of `directoryUrls` (acme.cas in order), in the same order. */
export async function accountFolders(dataDir: string, directoryUrls: readonly string[]): Promise<string[]> {
  const owner = (await storedIdentity(acmeFolder(dataDir)))?.directoryUrl ?? directoryUrls[0];
  return directoryUrls.map((url) => (url === owner ? acmeFolder(dataDir) : separateAccountFolder(dataDir, url)));
}
