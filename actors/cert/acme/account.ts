// The ACME account: its key (account.key, 0600, made once through the key job) and its URL at the
// directory it was registered with (account.json), both in a 0700 folder. Registering again with the
// same key is harmless (the CA answers with the existing account), so a lost account.json costs one request.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import acme, { type Client } from 'acme-client';
import { writeFileAtomic } from '../../../src/store/atomic.js';
import { ensureSecretDirectory, readSecretFile, writeSecretFile } from '../../../src/store/secret.js';
import type { KeyType } from '../key-types.js';
import { CaConnection } from './ca-connection.js';
import { AcmeOrderError } from './errors.js';
import { externalAccountBinding, type EabConfig } from './eab.js';
import { accountKeyFile, settleKeyRollover } from './key-rollover.js';

export { namedDirectories, resolveDirectoryUrl } from './directories.js';

export interface StatusPolling {
  /** First wait between two status polls; default 100 ms. */
  minMs: number;
  /** Longest wait between two polls; default 5 s. */
  maxMs: number;
  /** Polls before giving up; default 12 (about half a minute with the defaults). */
  attempts: number;
}

export interface AcmeAccountSettings {
  directoryUrl: string;
  /** Contact address given to the CA; a change is sent to the CA (RFC 8555 §7.3.2) when the account is opened. */
  email?: string;
  /** External account binding, sent when the account is registered (RFC 8555 §7.3.4). */
  eab?: EabConfig;
  /**
   * The operator agreed to the CA's terms of service (acme.accept_terms). A CA whose directory names
   * terms (meta.termsOfService) is asked to register an account only with it, and told so.
   */
  acceptTerms: boolean;
  /** PEM of an extra CA trusted for the CA's HTTPS (the content of `acme.ca_bundle`). */
  caBundlePem?: string;
  /** Folder of account.key and account.json; made 0700. */
  dir: string;
  /** Type of a new account key; default ecdsa-p256. */
  keyType?: KeyType;
  /** Makes a private key (the shared pool's key job, actors/cert/jobs.ts). */
  generateKey: (keyType: KeyType) => Promise<string>;
  polling?: Partial<StatusPolling>;
  /** Registers the key again even when account.json names an account: the CA said it does not know it. */
  registerAgain?: boolean;
  /** The most one request to the CA may take; caRequestTimeoutMs by default. */
  requestTimeoutMs?: number;
}

export interface AcmeAccount {
  readonly directoryUrl: string;
  readonly accountUrl: string;
  readonly client: Client;
  /** Every request to the CA goes through `connection.run`. */
  readonly connection: CaConnection;
  close(): void;
}

interface StoredAccount {
  directory_url: string;
  account_url: string;
  /** The contact URLs the CA was last given; absent: unknown, sent again. */
  contact?: string[];
}

export async function openAcmeAccount(settings: AcmeAccountSettings): Promise<AcmeAccount> {
  await ensureSecretDirectory(settings.dir);
  const keyFile = join(settings.dir, accountKeyFile);
  const accountFile = join(settings.dir, 'account.json');
  const stored = await readStoredAccount(accountFile);
  const known = settings.registerAgain !== true && stored?.directory_url === settings.directoryUrl ? stored.account_url : undefined;
  // A key rollover a crash cut short: the key the CA takes becomes account.key before it is read.
  if (known !== undefined) await settleKeyRollover({ dir: settings.dir }, { ...settings, accountUrl: known });
  const accountKey = await readAccountKey(keyFile, () => settings.generateKey(settings.keyType ?? 'ecdsa-p256'));
  const polling = { minMs: 100, maxMs: 5000, attempts: 12, ...settings.polling };
  const client = new acme.Client({
    directoryUrl: settings.directoryUrl,
    accountKey,
    accountUrl: known,
    ...(settings.eab === undefined ? {} : { externalAccountBinding: externalAccountBinding(settings.eab) }),
    backoffMin: polling.minMs,
    backoffMax: polling.maxMs,
    backoffAttempts: polling.attempts,
  });
  const connection = new CaConnection(settings.caBundlePem, settings.requestTimeoutMs);
  connection.reuseAnswerNonces(client);
  const contact = settings.email === undefined ? [] : [`mailto:${settings.email}`];
  let accountUrl = known;
  if (accountUrl === undefined) {
    accountUrl = await connection.run(async (state) => {
      try {
        // certhub setup shows the terms and asks (cli/acme-questions.ts); a config written by hand says so itself.
        const terms = await client.getTermsOfServiceUrl();
        if (terms !== null && terms !== undefined && !settings.acceptTerms)
          throw new Error(`the CA asks to agree to its terms of service, ${terms}: read them, and set acme.accept_terms to true in config.json to agree`);
        await client.createAccount({ ...(settings.acceptTerms ? { termsOfServiceAgreed: true } : {}), ...(contact.length === 0 ? {} : { contact }) });
        return client.getAccountUrl();
      } catch (error) {
        connection.close();
        throw new AcmeOrderError(
          `acme: registering the account at ${settings.directoryUrl} failed: ${messageOf(error)}`,
          state.retryAfterSeconds,
          state.problemType,
        );
      }
    });
    await writeStoredAccount(accountFile, { directory_url: settings.directoryUrl, account_url: accountUrl, contact });
  } else if (!sameContact(stored?.contact, contact)) {
    // acme.email changed since the account was registered: the CA is told (RFC 8555 §7.3.2).
    const url = accountUrl;
    await connection.run(async (state) => {
      try {
        await client.updateAccount({ contact });
      } catch (error) {
        connection.close();
        throw new AcmeOrderError(`acme: updating the contact of account ${url} failed: ${messageOf(error)}`, state.retryAfterSeconds, state.problemType);
      }
    });
    await writeStoredAccount(accountFile, { directory_url: settings.directoryUrl, account_url: accountUrl, contact });
  }
  return { directoryUrl: settings.directoryUrl, accountUrl, client, connection, close: () => connection.close() };
}

function sameContact(stored: readonly string[] | undefined, wanted: readonly string[]): boolean {
  return stored !== undefined && stored.length === wanted.length && stored.every((url, index) => url === wanted[index]);
}

export async function writeStoredAccount(path: string, record: StoredAccount): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
}

async function readAccountKey(path: string, generate: () => Promise<string>): Promise<string> {
  try {
    return (await readSecretFile(path)).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = await generate();
  await writeSecretFile(path, key);
  return key;
}

async function readStoredAccount(path: string): Promise<StoredAccount | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<StoredAccount>;
    if (typeof parsed.directory_url !== 'string' || typeof parsed.account_url !== 'string') return undefined;
    const contact = Array.isArray(parsed.contact) && parsed.contact.every((url) => typeof url === 'string') ? { contact: parsed.contact } : {};
    return { directory_url: parsed.directory_url, account_url: parsed.account_url, ...contact };
  } catch {
    // Missing or unreadable: the account is registered (again) with the same key.
    return undefined;
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
