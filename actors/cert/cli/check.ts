// `certhub check -d DIR`: what certhub run needs, tried before it is needed. config.json first (a
// problem exits 2 naming its option path, as certhub run does); then, online, for each CA of acme.cas:
// its directory answers, its terms of service are agreed to (accept_terms), and the account is there:
// registered (with acme.cas[].eab where the CA asks for it) when the data directory holds none, else
// found at the CA; and each DNS provider writes and removes a TXT record at `_certhub-check.<zone>`
// (for Cloudflare, the setup wizard's own write check). One line per check; exit 0 when every one
// passed, 1 otherwise.
import { chown, readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { exitCodes } from '../../../src/errors.js';
import { exitAfterOutput } from '../../../src/cli/output.js';
import { openAcmeAccount, messageOf } from '../acme/account.js';
import { accountFolders } from '../acme/account-folders.js';
import { readDirectoryMeta, type DirectoryMeta } from '../acme/directory-meta.js';
import { caNameOf } from '../acme/named-directories.js';
import { certConfigPath, loadCertConfig } from '../config-load.js';
import type { CaConfig, CertConfig } from '../config.js';
import { CloudflareProvider } from '../dns/providers/cloudflare.js';
import { createDnsProvider, type DnsProviderConfig } from '../dns/providers/create.js';
import { generatePrivateKeyPem } from '../private-key.js';

/** One request of the check to a CA or a DNS provider. */
const checkTimeoutMs = 15_000;

export interface CheckOptions {
  dataDir: string;
  /** Where the lines go; process.stdout by default. */
  write?: NodeJS.WritableStream;
}

type Outcome = { ok: true; said?: string } | { ok: false; problem: string };

export async function runCerthubCheck(options: CheckOptions): Promise<void> {
  const out = options.write ?? process.stdout;
  const { config } = await loadCertConfig(options.dataDir, { demo: false });
  let failed = 0;
  const report = (what: string, outcome: Outcome) => {
    if (!outcome.ok) failed += 1;
    out.write(`${what}: ${outcome.ok ? `ok${outcome.said === undefined ? '' : ` (${outcome.said})`}` : `FAILED: ${outcome.problem}`}\n`);
  };
  report(certConfigPath(options.dataDir), { ok: true });
  const listed = await listsCas(options.dataDir);
  const folders = await accountFolders(
    options.dataDir,
    config.acme.cas.map((ca) => ca.directory_url),
  );
  for (const [index, ca] of config.acme.cas.entries()) {
    const name = `CA ${caNameOf(ca.directory_url)}`;
    const caBundlePem = ca.ca_bundle === undefined ? undefined : await readFile(ca.ca_bundle, 'utf8');
    let meta: DirectoryMeta;
    try {
      meta = await readDirectoryMeta(ca.directory_url, caBundlePem, checkTimeoutMs);
      report(`${name} directory`, { ok: true, said: ca.directory_url });
    } catch (error) {
      report(`${name} directory`, { ok: false, problem: `${ca.directory_url}: ${messageOf(error)}` });
      report(`${name} account`, { ok: false, problem: 'not tried: the directory does not answer' });
      continue;
    }
    const path = listed ? `acme.cas[${index}]` : 'acme';
    report(`${name} terms of service`, termsOutcome(meta, ca, path));
    const dir = folders[index] ?? '';
    report(`${name} account`, await accountOutcome(config, ca, meta, { dir, caBundlePem, path }));
    await giveToDataDirOwner(options.dataDir, dir);
  }
  for (const [option, provider] of providersOf(config)) report(`DNS ${option} (${provider.provider})`, await dnsOutcome(provider));
  if (failed > 0) await exitAfterOutput(exitCodes.failure);
}

function termsOutcome(meta: DirectoryMeta, ca: CaConfig, path: string): Outcome {
  if (meta.termsOfService === undefined) return { ok: true, said: 'the CA names none' };
  if (ca.accept_terms) return { ok: true, said: `agreed to ${meta.termsOfService}` };
  return { ok: false, problem: `the CA asks to agree to ${meta.termsOfService}: read them, and set ${path}.accept_terms to true to agree` };
}

async function accountOutcome(
  config: Readonly<CertConfig>,
  ca: CaConfig,
  meta: DirectoryMeta,
  where: { dir: string; caBundlePem: string | undefined; path: string },
): Promise<Outcome> {
  if (meta.externalAccountRequired && ca.eab === undefined)
    return {
      ok: false,
      problem: `the CA registers accounts only with an external account binding: give ${where.path}.eab (kid and hmac_key, from the CA)`,
    };
  let account;
  try {
    account = await openAcmeAccount({
      directoryUrl: ca.directory_url,
      ...(config.acme.email === undefined ? {} : { email: config.acme.email }),
      ...(ca.eab === undefined ? {} : { eab: ca.eab }),
      ...(where.caBundlePem === undefined ? {} : { caBundlePem: where.caBundlePem }),
      acceptTerms: ca.accept_terms,
      dir: where.dir,
      keyType: config.acme.key_type,
      generateKey: (keyType) => Promise.resolve(generatePrivateKeyPem({ keyType })),
      requestTimeoutMs: checkTimeoutMs,
    });
  } catch (error) {
    const registering = ca.eab !== undefined && messageOf(error).includes('registering the account');
    return { ok: false, problem: `${messageOf(error)}${registering ? `; are ${where.path}.eab's kid and hmac_key the ones the CA gave?` : ''}` };
  }
  try {
    // An account certhub registered earlier is read back from the CA (an empty update, RFC 8555 §7.3.2).
    const found = (await account.connection.run(() => account.client.updateAccount({}))) as { status?: unknown };
    if (found.status !== 'valid') return { ok: false, problem: `account ${account.accountUrl} is ${String(found.status)} at the CA` };
    return { ok: true, said: account.accountUrl };
  } catch (error) {
    return { ok: false, problem: `the CA does not give back account ${account.accountUrl}: ${messageOf(error)}` };
  } finally {
    account.close();
  }
}

/** Each DNS provider of config.json by its option: dns, or dns_acme and dns_records. */
function providersOf(config: Readonly<CertConfig>): [string, DnsProviderConfig][] {
  const named: [string, DnsProviderConfig | undefined][] = [
    ['dns', config.dns],
    ['dns_acme', config.dns_acme],
    ['dns_records', config.dns_records],
  ];
  return named.filter((entry): entry is [string, DnsProviderConfig] => entry[1] !== undefined);
}

async function dnsOutcome(config: DnsProviderConfig): Promise<Outcome> {
  try {
    const provider = createDnsProvider(config, { timeoutMs: checkTimeoutMs });
    const zone = await provider.zoneName();
    const probe = `_certhub-check.${zone}`;
    if (provider instanceof CloudflareProvider) {
      const missing = await provider.missingDnsWrite();
      return missing === undefined ? { ok: true, said: `zone ${zone}: a TXT record at ${probe} written and removed` } : { ok: false, problem: missing };
    }
    const value = `certhub check ${Date.now()}`;
    await provider.addTxt(probe, value);
    await provider.removeTxt(probe, value);
    return { ok: true, said: `zone ${zone}: a TXT record at ${probe} written and removed` };
  } catch (error) {
    return { ok: false, problem: messageOf(error) };
  }
}

/** Whether config.json gives acme.cas (the option paths of its CAs) rather than the single-CA form. */
async function listsCas(dataDir: string): Promise<boolean> {
  const written = JSON.parse(await readFile(certConfigPath(dataDir), 'utf8')) as { acme?: { cas?: unknown } };
  return written.acme?.cas !== undefined;
}

/**
 * Run as root beside a service of another user (systemd's DynamicUser), an account folder the check
 * made is given the data directory's owner, as certhub run would have made it: else the service
 * could not read its own account key.
 */
async function giveToDataDirOwner(dataDir: string, folder: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const owner = await stat(dataDir);
  if (owner.uid === 0) return;
  const made: string[] = [];
  for (let path = folder; relative(dataDir, path) !== '' && !relative(dataDir, path).startsWith('..'); path = dirname(path)) made.push(path);
  const files = await readdir(folder).catch(() => []);
  for (const path of [...made, ...files.map((file) => join(folder, file))]) {
    const now = await stat(path).catch(() => undefined);
    if (now?.uid === 0) await chown(path, owner.uid, owner.gid);
  }
}
