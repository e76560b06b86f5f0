// `qpool setup send|recv`: asks for the options of one side, checks the result against the schema
// `qpool collect` or `qpool serve` reads, and writes it with mode 0600 (a send config can hold the
// keyed API key). `setup recv` with a pool file also makes up the pool passphrase, shows it once and
// keeps it nowhere.
import { randomBytes } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { poolFilePaths } from '../pool/pool-files.js';
import { entryBytes } from '../values/batch.js';
import { validateConfig } from '../../../src/config/load.js';
import { formatIssues } from '../../../src/config/format.js';
import { collectFileSchema, serveFileSchema } from '../config.js';
import { writeSecretFile } from '../../../src/store/secret.js';
import { BadAnswer, Prompter } from '../../../src/cli/prompt.js';
import { shellQuote } from '../../../src/cli/shell-quote.js';
import { diodeChannel, diodeCommand, diodeProgram } from './sample-config.js';

export type SetupSide = 'send' | 'recv';

export interface SetupOptions {
  /** The config file to write. */
  output: string;
  /** Replace an existing file. */
  force: boolean;
  /** Where answers come from; process.stdin by default. */
  input?: NodeJS.ReadableStream;
  /** Where questions and results go; process.stdout by default. */
  write?: NodeJS.WritableStream;
}

export async function runSetupWizard(side: SetupSide, options: SetupOptions): Promise<void> {
  const file = resolve(options.output);
  // Before the first question, so that nobody answers them all only to be refused.
  await refuseToOverwrite(file, options.force);
  // A config and a pool passphrase made from defaults nobody chose would look like answers: input
  // that ends early writes nothing.
  const prompter = new Prompter(options.input ?? process.stdin, options.write ?? process.stdout, { endOfInput: 'refuse' });
  let config: SendDraft | RecvDraft;
  try {
    prompter.say(
      `qpool setup ${side}: writes the config for the ${side === 'send' ? 'sending machine (the one on the internet)' : 'receiving machine (the protected one)'} to ${file}.`,
    );
    prompter.say('Press Enter to take the [default]. Ctrl-C stops without writing anything.');
    prompter.say();
    config = side === 'send' ? await askSend(prompter) : await askRecv(prompter);
  } finally {
    prompter.close();
  }
  if (side === 'send') validateConfig(collectFileSchema, config);
  else validateConfig(serveFileSchema, config);
  await refuseToOverwrite(file, options.force);
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await writeSecretFile(file, `${JSON.stringify(config, null, 2)}\n`);
  const out = options.write ?? process.stdout;
  const say = (text = '') => out.write(`${text}\n`);
  say();
  say(`Wrote ${file} (mode 0600${side === 'send' ? ': it can hold the API key' : ''}).`);
  if ('anu' in config) {
    say(`At these settings the sources supply about ${valuesPerHour(config)} values an hour.`);
    say(`Next, on this machine: qpool collect -c ${shellQuote(file)}`);
  } else {
    await printServeNext(say, file, config.server.pool_file);
  }
}

async function refuseToOverwrite(file: string, force: boolean): Promise<void> {
  const info = await stat(file).catch(() => undefined);
  if (info === undefined) return;
  if (info.isDirectory()) throw new Error(`${file} is a directory; give the config file's name with -o`);
  // A refusal to destroy state, not a malformed command line: exit 1 like any failed action.
  if (!force) throw new Error(`${file} exists; not overwriting it (pass --force to replace it, or -o to write elsewhere)`);
}

interface SourceDraft {
  enabled: boolean;
  api_key?: string;
  length?: number;
  size?: number;
  interval_seconds?: number;
}

interface SendDraft {
  anu: { timeout_seconds: number; keyed: SourceDraft; legacy: SourceDraft };
  collect: { retry_limit: number };
  diode: { send_command: string[]; timeout_seconds: number };
}

interface RecvDraft {
  server: { listen: string; max_entries: number; served_history: number; receive_command: string[]; pool_file?: string };
}

const keyedSignup = 'https://quantumnumbers.anu.edu.au';

async function askSend(p: Prompter): Promise<SendDraft> {
  p.say('Sources: the legacy ANU API needs no key and allows about one request a minute;');
  p.say(`the keyed API needs a free key (${keyedSignup}) and allows about 100 requests a month.`);
  let legacy: boolean;
  let apiKey: string | undefined;
  for (;;) {
    legacy = await p.yesNo('Use the legacy ANU API?', true);
    apiKey = await askApiKey(p);
    if (legacy || apiKey !== undefined) break;
    p.say('  At least one source is needed: answer y to one of the two.');
  }
  const anu: SendDraft['anu'] = { timeout_seconds: 180, keyed: { enabled: false }, legacy: { enabled: false } };
  if (legacy) {
    anu.legacy = {
      enabled: true,
      length: await p.integer('Legacy API: blocks per request', 1024, 1, 1024),
      size: await p.integer('Legacy API: bytes per block', 64, 1, 1024),
      interval_seconds: await p.integer('Legacy API: seconds between requests', 3600, 60),
    };
  }
  if (apiKey !== undefined) {
    anu.keyed = {
      enabled: true,
      api_key: apiKey,
      length: await p.integer('Keyed API: blocks per request', 1024, 1, 1024),
      size: await p.integer('Keyed API: 16-bit values per block', 10, 1, 10),
      interval_seconds: await p.integer('Keyed API: seconds between requests', 28_800, 1),
    };
    const monthly = Math.round((30 * 86_400) / (anu.keyed.interval_seconds ?? 1));
    if (monthly > 100) p.say(`  Note: that is about ${monthly} requests a month; a free key allows about 100, the rest would be refused.`);
  }
  anu.timeout_seconds = await p.integer('Seconds to wait for an ANU response', 180, 1);
  // The legacy API answers at about two seconds per kilobyte.
  const legacySeconds = legacy ? Math.ceil((((anu.legacy.length ?? 0) * (anu.legacy.size ?? 0)) / 1024) * 2) : 0;
  if (legacySeconds >= anu.timeout_seconds) {
    p.say(`  Note: a legacy request of that size takes about ${legacySeconds} s, so it would time out; consider a longer wait.`);
  }
  const program = await askWord(p, 'Diode program (name or path of the diode tool)', diodeProgram);
  const channel = await askWord(p, 'Diode channel', diodeChannel);
  return {
    anu,
    collect: { retry_limit: await p.integer('Send attempts per cycle before the values are dropped', 5, 1, 100) },
    diode: {
      send_command: diodeCommand(program, 'stream-send', channel),
      timeout_seconds: await p.integer('Seconds a send may take', 600, 1),
    },
  };
}

/** The keyed API key, or undefined when the keyed API is not used. */
async function askApiKey(p: Prompter): Promise<string | undefined> {
  for (;;) {
    if (!(await p.yesNo('Use the keyed ANU API (needs an API key)?', false))) return undefined;
    const key = await p.secret(`Keyed API key (free from ${keyedSignup}; empty to go back)`);
    if (key !== '') return key;
    p.say('  The keyed API cannot be used without its key. Answer n to go without it, or y and give the key.');
  }
}

async function askRecv(p: Prompter): Promise<RecvDraft> {
  const listen = await p.ask('Address of the HTTP API (host:port)', '127.0.0.1:8099', (answer) => {
    const host = checkServerField('listen', answer) as { host: string };
    return { answer, loopback: host.host === 'localhost' || host.host === '::1' || host.host.startsWith('127.') };
  });
  if (!listen.loopback) {
    p.say('  Warning: that is not a loopback address. The API has no authentication: anyone who can reach');
    p.say('  the port can drain the pool. Keep it on a trusted network or behind a reverse proxy.');
  }
  const maxEntries = await p.integer(`Pool capacity in values (${entryBytes} bytes of memory each)`, 100_000, 1, 10_000_000);
  const servedHistory = await p.integer('Served values remembered so that a replay is never served twice', 10_000, 0, 10_000_000);
  const program = await askWord(p, 'Diode program (name or path of the diode tool)', diodeProgram);
  const channel = await askWord(p, 'Diode channel', diodeChannel);
  const subcommand = await p.choice('Receive with', ['stream-recv', 'auto-stream-recv']);
  const server: RecvDraft['server'] = {
    listen: listen.answer,
    max_entries: maxEntries,
    served_history: servedHistory,
    receive_command: diodeCommand(program, subcommand, channel),
  };
  if (await p.yesNo('Keep the pool on disk, encrypted, so that it survives a restart?', true)) {
    server.pool_file = await p.ask('Pool file (absolute path; <file>.hot is written beside it)', defaultPoolFile(), (answer) => {
      const path = answer === '~' || answer.startsWith('~/') ? join(homedir(), answer.slice(1)) : answer;
      checkServerField('pool_file', path);
      return path;
    });
    const existing = (
      await Promise.all(
        Object.values(poolFilePaths(server.pool_file)).map((path) =>
          stat(path).then(
            () => path,
            () => undefined,
          ),
        ),
      )
    ).filter(Boolean);
    if (existing.length > 0) {
      p.say(`  Note: ${existing.join(' and ')} already exist. The new passphrase will not open them: keep using the`);
      p.say('  old passphrase (and ignore the new one), or delete them to start with an empty pool.');
    }
  }
  return { server };
}

/** A single word: the diode program and channel are one argument each (no shell splits them). */
function askWord(p: Prompter, question: string, fallback: string): Promise<string> {
  return p.ask(question, fallback, (answer) => {
    if (/\s/.test(answer)) throw new BadAnswer('no spaces, please: this is one argument (to wrap the tool in another command, edit the file afterwards)');
    return answer;
  });
}

/** Checks one server option with the schema `qpool serve` uses; returns its parsed value. */
function checkServerField(field: 'listen' | 'pool_file', value: string): unknown {
  const result = serveFileSchema.safeParse({ server: { [field]: value, loopback: true } });
  if (result.success) return result.data.server[field];
  const problems = formatIssues(
    serveFileSchema,
    result.error.issues.filter((issue) => issue.path[1] === field),
  );
  if (problems.length === 0) throw new Error(`unexpected problem checking server.${field}: ${result.error.message}`);
  throw new BadAnswer(problems.join('; '));
}

function defaultPoolFile(): string {
  return process.getuid?.() === 0 ? '/var/lib/qpool/pool.bin' : join(homedir(), '.local/state/qpool/pool.bin');
}

function valuesPerHour({ anu }: SendDraft): number {
  const perHour = (source: SourceDraft, bytesPerUnit: number) =>
    source.enabled ? Math.floor(((source.length ?? 0) * (source.size ?? 0) * bytesPerUnit) / 128) * (3600 / (source.interval_seconds ?? 3600)) : 0;
  return Math.round(perHour(anu.legacy, 1) + perHour(anu.keyed, 2));
}

async function printServeNext(say: (text?: string) => void, file: string, poolFile: string | undefined): Promise<void> {
  if (poolFile === undefined) {
    say('The pool is kept in memory only: a restart starts with an empty pool.');
    say(`Next, on this machine: qpool serve -c ${shellQuote(file)}`);
    return;
  }
  const passphrase = randomBytes(32).toString('base64url');
  say();
  say('Pool passphrase (shown this once and stored nowhere; keep it safe):');
  say();
  say(`    ${passphrase}`);
  say();
  say('qpool serve reads it from the environment variable APP_POOL_KEY and refuses to start without it:');
  say(`    export APP_POOL_KEY='${passphrase}'`);
  say(`    qpool serve -c ${shellQuote(file)}`);
  say('Under systemd, put the passphrase alone in a file only root can read (chmod 600,');
  say('/etc/outpost/qpool-pool-key in the shipped unit): the unit hands it over with LoadCredential=');
  say('and APP_POOL_KEY_FILE, so it is in no environment. Environment= would show it to anyone who');
  say('can read the unit.');
  say('Without the passphrase the pool cannot be read; there is no recovery. If it is lost, delete');
  const { journal, nextJournal } = poolFilePaths(poolFile);
  say(`both ${poolFile} and ${journal} (and ${nextJournal}, if there is one) and start with an empty pool.`);
  const poolDir = dirname(poolFile);
  if (isAbsolute(poolDir) && (await stat(poolDir).catch(() => undefined)) === undefined) {
    say();
    say(`${poolDir} does not exist yet; create it as the user qpool serve runs as: mkdir -p -m 700 ${shellQuote(poolDir)}`);
  }
}
