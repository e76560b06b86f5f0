// `certhub setup -d DIR`: asks for the base domain (no default: a real-looking placeholder would be
// written and go unnoticed), the CA (ACME directory, CA bundle; then, from what the directory says, the
// external account binding, the profile, and agreement to its terms of service), the ACME DNS provider, the records
// provider (the same or another), their credentials (tried before they are written), the propagation
// nameservers, the bind address and port; makes up the admin key; writes DIR/config.json with mode
// 0600 in a 0700 directory. Other questions have defaults, and a credential may be left to fill in
// later; the end of input is no answer: the wizard stops and writes nothing (as qpool setup does).
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { z } from 'zod';
import { newAdminKey } from '../domains/token.js';
import { certConfigSchema } from '../config.js';
import { certConfigPath } from '../config-load.js';
import { formatIssues } from '../../../src/config/format.js';
import { bindAddress } from '../../../src/config/rules.js';
import { ensureSecretDirectory, writeSecretFile } from '../../../src/store/secret.js';
import { isBetaBuild } from '../../../src/version.js';
import { BadAnswer, Prompter } from '../../../src/cli/prompt.js';
import { shellQuote } from '../../../src/cli/shell-quote.js';
import { askCheckedProvider, type ProviderDraft, type ProviderKind } from './provider-questions.js';
import { askAcmeDirectory, askCaBundle, askExternalAccount, askNameservers, askProfile, askTermsAgreement, readDirectory } from './acme-questions.js';
import type { EabConfig } from '../acme/eab.js';
import { hostNameProblem, normalizeName } from '../../../src/net/host-names.js';

export interface CerthubSetupOptions {
  dataDir: string;
  /** Replace an existing config.json. */
  force: boolean;
  /** Where answers come from; process.stdin by default. */
  input?: NodeJS.ReadableStream;
  /** Where questions and results go; process.stdout by default. */
  write?: NodeJS.WritableStream;
  /** Cloudflare's API base, for a test double (written as api_url); the public API when absent. */
  cloudflareApiUrl?: string;
}

interface ConfigDraft {
  base_domain: string;
  admin_key: string;
  bind: string;
  port: number;
  dns?: ProviderDraft;
  dns_acme?: ProviderDraft;
  dns_records?: ProviderDraft;
  acme: { directory_url: string; ca_bundle?: string; eab?: EabConfig; profile?: string; accept_terms?: true; email?: string };
  propagation?: { nameservers: string[] };
}

export async function runCerthubSetup(options: CerthubSetupOptions): Promise<void> {
  const dataDir = resolve(options.dataDir);
  const file = certConfigPath(dataDir);
  // Before the first question, so that nobody answers them all only to be refused.
  await refuseToOverwrite(file, options.force);
  const out = options.write ?? process.stdout;
  const prompter = new Prompter(options.input ?? process.stdin, out, { endOfInput: 'refuse' });
  let config: ConfigDraft;
  let termsUnread: boolean;
  try {
    prompter.say(`certhub setup: writes ${file}.`);
    prompter.say('Press Enter to take the [default]; a question without one needs an answer. Credentials may');
    prompter.say('be left empty and filled in config.json later. Ctrl-C stops without writing anything.');
    prompter.say();
    ({ config, termsUnread } = await askConfig(prompter, options.cloudflareApiUrl));
  } finally {
    prompter.close();
  }
  await refuseToOverwrite(file, options.force);
  await ensureSecretDirectory(dataDir);
  await writeSecretFile(file, `${JSON.stringify(config, null, 2)}\n`);
  const say = (text = '') => out.write(`${text}\n`);
  say();
  say(`Wrote ${file} (mode 0600: it holds the admin key and the DNS credentials).`);
  say();
  say('Admin key (log in to the admin panel with it; certhub run prints it again at start on a terminal):');
  say(`    ${config.admin_key}`);
  say();
  const missing = stillMissing(config, termsUnread);
  if (missing.length === 0) {
    say(`Next: certhub run -d ${shellQuote(dataDir)}`);
  } else {
    say('Before certhub run, fill in config.json:');
    for (const problem of missing) say(`  ${problem}`);
    if (config.dns === undefined && config.dns_acme === undefined && isBetaBuild)
      say(`Meanwhile, without any DNS provider or CA: certhub run -d ${shellQuote(dataDir)} --demo`);
  }
}

async function refuseToOverwrite(file: string, force: boolean): Promise<void> {
  const info = await stat(file).catch(() => undefined);
  if (info === undefined) return;
  if (info.isDirectory()) throw new Error(`${file} is a directory`);
  // A refusal to destroy state, not a malformed command line: exit 1 like any failed action.
  if (!force) throw new Error(`${file} exists; not overwriting it (pass --force to replace it with a new config and a new admin key)`);
}

/** The answers, and whether the CA's directory could not be read (its terms are then still to agree to). */
async function askConfig(p: Prompter, cloudflareApiUrl: string | undefined): Promise<{ config: ConfigDraft; termsUnread: boolean }> {
  const baseDomain = await p.ask('Base domain (subdomains are created under it, e.g. certs.your-company.net)', undefined, (answer) => {
    if (answer === '') throw new BadAnswer('please give the domain certhub manages (there is no default)');
    const name = normalizeName(answer);
    const problem = hostNameProblem(name);
    if (problem !== undefined) throw new BadAnswer(`the base domain ${problem}`);
    return name;
  });
  const config: ConfigDraft = { base_domain: baseDomain, admin_key: newAdminKey(), bind: '0.0.0.0', port: 8443, acme: { directory_url: '' } };
  p.say();
  config.acme.directory_url = await askAcmeDirectory(p);
  const caBundle = await askCaBundle(p);
  if (caBundle !== undefined) config.acme.ca_bundle = caBundle.path;
  const meta = await readDirectory(p, config.acme.directory_url, caBundle?.pem);
  const eab = await askExternalAccount(p, config.acme.directory_url, meta);
  if (eab !== undefined) config.acme.eab = eab;
  const profile = await askProfile(p, meta);
  if (profile !== undefined) config.acme.profile = profile;
  if ((await askTermsAgreement(p, meta)) === true) config.acme.accept_terms = true;
  p.say();
  p.say('DNS providers: one writes the _acme-challenge TXT records for certificates (ACME), one the A, AAAA');
  p.say('and CNAME records of the subdomains; they may be the same. "none": only certhub run --demo works.');
  const acmeKind = await p.choice('ACME DNS provider', ['none', 'cloudflare', 'powerdns']);
  if (acmeKind !== 'none') {
    const question = (kind: ProviderKind, duty: string, writesRecords: boolean) => ({ kind, duty, baseDomain, writesRecords, cloudflareApiUrl });
    const recordsKind = await p.choice('Records DNS provider', ['same', 'cloudflare', 'powerdns']);
    if (recordsKind === 'same') config.dns = await askCheckedProvider(p, question(acmeKind, 'ACME challenge, A, AAAA and CNAME records', true));
    else {
      config.dns_acme = await askCheckedProvider(p, question(acmeKind, 'ACME challenge records', false));
      config.dns_records = await askCheckedProvider(p, question(recordsKind, 'A, AAAA and CNAME records', true));
    }
    p.say();
    const nameservers = await askNameservers(p);
    if (nameservers !== undefined) config.propagation = { nameservers };
  }
  p.say();
  config.bind = await p.ask('Address to listen on', '0.0.0.0', (answer) => {
    if (!bindAddress.safeParse(answer).success) throw new BadAnswer('please give an IP address or a host name, e.g. 0.0.0.0 or 127.0.0.1');
    return answer;
  });
  config.port = await p.integer('Port', 8443, 1, 65535);
  const email = await p.ask('Contact e-mail for the certificate authority (expiry warnings; optional)', 'skip', (answer) => {
    if (answer !== 'skip' && !z.email().safeParse(answer).success) throw new BadAnswer('please give an e-mail address, or press Enter to skip');
    return answer;
  });
  if (email !== 'skip') config.acme.email = email;
  return { config, termsUnread: meta === undefined };
}

/** What certhub run (without --demo) would still refuse or get wrong, one line per option path. */
function stillMissing(config: ConfigDraft, termsUnread: boolean): string[] {
  const schema = certConfigSchema({ demo: false });
  const result = schema.safeParse(config);
  const problems = result.success ? [] : formatIssues(schema, result.error.issues);
  if (termsUnread) problems.push("acme.accept_terms: read the CA's terms of service (its directory's meta.termsOfService) and set it to true to agree");
  return problems;
}
