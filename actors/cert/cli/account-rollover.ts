// `certhub account rollover -d DIR`: the ACME account of the data directory at the first CA of acme.cas gets a new key (RFC 8555
// §7.3.5), of acme.key_type, through acme/key-rollover.ts. It holds the data directory's claim, so it
// refuses to run beside a certhub run on the same directory (whose account would keep the old key).
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { holdClaims } from '../../../src/actor/claims.js';
import { ConfigError } from '../../../src/errors.js';
import { shellQuote } from '../../../src/cli/shell-quote.js';
import { openAcmeAccount } from '../acme/account.js';
import { accountFolders } from '../acme/account-folders.js';
import { accountKeyFile, nextAccountKeyFile, rollOverAccountKey } from '../acme/key-rollover.js';
import { loadCertConfig } from '../config-load.js';
import { generatePrivateKeyPem } from '../private-key.js';

export interface AccountRolloverOptions {
  dataDir: string;
  /** Where the result goes; process.stdout by default. */
  write?: NodeJS.WritableStream;
}

export async function runAccountRollover(options: AccountRolloverOptions): Promise<void> {
  const out = options.write ?? process.stdout;
  const { config } = await loadCertConfig(options.dataDir, { demo: false });
  await holdClaims([{ role: 'cert', claims: { stores: [{ path: options.dataDir, what: 'data directory' }] } }]);
  const [dir = join(options.dataDir, 'acme')] = await accountFolders(options.dataDir, [config.acme.directory_url]);
  const accountFile = join(dir, 'account.json');
  if (!(await registeredAt(accountFile, config.acme.directory_url)))
    throw new ConfigError([
      `${accountFile} names no account at ${config.acme.directory_url}: certhub registers one at its first order (certhub run -d ${shellQuote(options.dataDir)}), and its key is new then`,
    ]);
  const keyType = config.acme.key_type;
  const account = await openAcmeAccount({
    directoryUrl: config.acme.directory_url,
    ...(config.acme.cas[0]?.ca_bundle === undefined ? {} : { caBundlePem: await readFile(config.acme.cas[0].ca_bundle, 'utf8') }),
    ...(config.acme.email === undefined ? {} : { email: config.acme.email }),
    acceptTerms: config.acme.accept_terms,
    dir,
    keyType,
    generateKey: () => Promise.reject(new Error(`${join(dir, accountKeyFile)} is missing: the account's key cannot be rolled over without it`)),
  });
  try {
    await rollOverAccountKey(account.client, account.connection, generatePrivateKeyPem({ keyType }), { dir });
  } catch (error) {
    const kept = await exists(join(dir, nextAccountKeyFile));
    const after = kept
      ? `; the CA's answer did not arrive, so ${nextAccountKeyFile} is kept and certhub keeps whichever key the CA holds when it next opens the account`
      : `; ${accountKeyFile} is unchanged`;
    throw new Error(`the key rollover of ${account.accountUrl} failed: ${error instanceof Error ? error.message : String(error)}${after}`);
  } finally {
    account.close();
  }
  out.write(`certhub: account ${account.accountUrl} has a new ${keyType} key in ${join(dir, accountKeyFile)}; the CA refuses the old one.\n`);
}

async function registeredAt(accountFile: string, directoryUrl: string): Promise<boolean> {
  try {
    const stored = JSON.parse(await readFile(accountFile, 'utf8')) as { directory_url?: unknown; account_url?: unknown };
    return stored.directory_url === directoryUrl && typeof stored.account_url === 'string';
  } catch {
    return false;
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
