// Account key rollover (RFC 8555 §7.3.5): the CA is asked to bind the account to a new key, signed by
// both keys. The new key is written to account.key.next (0600, synced) before the CA is asked, and
// renamed over account.key once the CA accepted it, so a crash at any point leaves a key the CA takes:
// before the CA's answer, account.key still works and account.key.next is the key of a rollover that
// may or may not have landed; openAcmeAccount settles it (settleKeyRollover) by asking the CA whether
// it knows the next key, and keeps the one it does.
import { chown, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import acme, { type Client } from 'acme-client';
import { syncDirectory } from '../../../src/store/atomic.js';
import { readSecretFile, writeSecretFile } from '../../../src/store/secret.js';
import { CaConnection } from './ca-connection.js';
import { accountDoesNotExist } from './errors.js';

export const accountKeyFile = 'account.key';
/** The key of a rollover under way; absent when none is. */
export const nextAccountKeyFile = 'account.key.next';

export interface RolloverFiles {
  /** The account's folder (`<data dir>/acme`). */
  dir: string;
}

export interface KnownAccount {
  directoryUrl: string;
  accountUrl: string;
  /** PEM of an extra CA trusted for the CA's HTTPS. */
  caBundlePem?: string;
  requestTimeoutMs?: number;
}

/**
 * A rollover a crash cut short (account.key.next present) is finished or undone: when the CA knows the
 * next key as the key of this account, it replaces account.key; when the CA knows no account for it,
 * it is removed. Nothing to do (and no request) when there is no next key.
 */
export async function settleKeyRollover(files: RolloverFiles, account: KnownAccount): Promise<'none' | 'finished' | 'undone'> {
  const nextFile = join(files.dir, nextAccountKeyFile);
  let nextKey: string;
  try {
    nextKey = (await readSecretFile(nextFile)).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'none';
    throw error;
  }
  const owner = await accountOfKey(nextKey, account);
  if (owner === account.accountUrl) {
    await replaceAccountKey(files.dir);
    return 'finished';
  }
  if (owner !== undefined) throw new Error(`${nextFile} is the key of another account at the CA (${owner}), not of ${account.accountUrl}; move it away`);
  await rm(nextFile);
  await syncDirectory(files.dir);
  return 'undone';
}

/** The URL of the account the CA holds for `key` (newAccount with onlyReturnExisting), or undefined when it holds none. */
async function accountOfKey(key: string, account: KnownAccount): Promise<string | undefined> {
  const client = new acme.Client({ directoryUrl: account.directoryUrl, accountKey: key });
  const connection = new CaConnection(account.caBundlePem, account.requestTimeoutMs);
  try {
    return await connection.run(async (state) => {
      try {
        await client.createAccount({ onlyReturnExisting: true });
        return client.getAccountUrl();
      } catch (error) {
        if (state.problemType === accountDoesNotExist) return undefined;
        throw new Error(`asking the CA whose account ${nextAccountKeyFile} is failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  } finally {
    connection.close();
  }
}

/**
 * Rolls the account of `client` over to `newKey`: written to account.key.next first, the CA asked,
 * then renamed over account.key. A refusal by the CA removes the next key; a failure whose outcome is
 * unknown (no answer) keeps it for settleKeyRollover.
 */
export async function rollOverAccountKey(client: Client, connection: CaConnection, newKey: string, files: RolloverFiles): Promise<void> {
  const nextFile = join(files.dir, nextAccountKeyFile);
  await writeSecretFile(nextFile, newKey);
  // Run as root on a service's data (systemd's DynamicUser): the key stays readable by the service.
  const owner = await stat(join(files.dir, accountKeyFile));
  if (process.getuid?.() === 0 && owner.uid !== 0) await chown(nextFile, owner.uid, owner.gid);
  let answered = false;
  try {
    await connection.run(async (state) => {
      try {
        await client.updateAccountKey(newKey);
      } catch (error) {
        answered = state.problemType !== undefined;
        throw error;
      }
    });
  } catch (error) {
    if (answered) {
      await rm(nextFile, { force: true });
      await syncDirectory(files.dir);
    }
    throw error;
  }
  await replaceAccountKey(files.dir);
}

async function replaceAccountKey(dir: string): Promise<void> {
  await rename(join(dir, nextAccountKeyFile), join(dir, accountKeyFile));
  await syncDirectory(dirname(join(dir, accountKeyFile)));
}
