// `qpool setup send|recv` and `qpool sample-config` run as a user would: the real CLI, answers piped
// to its standard input. Whatever the answers, what it writes must be a config `qpool collect` or
// `qpool serve` accepts.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import test from 'ava';
import { validateConfig } from '../../../src/config/load.js';
import { entryBytes } from '../../../actors/qpool/values/batch.js';
import { collectFileSchema, serveFileSchema } from '../../../actors/qpool/config.js';
import { runToEnd } from '../../helpers/process.js';
import { modeOf, qpoolBin, tempDir } from '../../helpers/qpool.js';

type Result = Awaited<ReturnType<typeof runToEnd>>;

/** Runs qpool with `answers` (one per line) on its stdin, then closes it; HOME is a fresh folder. */
function qpool(home: string, args: readonly string[], answers: readonly string[] = []): Promise<Result> {
  return runToEnd(process.execPath, [qpoolBin, ...args], { HOME: home }, answers.map((answer) => `${answer}\n`).join(''));
}

async function readConfig(file: string): Promise<unknown> {
  return JSON.parse(await readFile(file, 'utf8')) as unknown;
}

test('setup send writes the answers, re-asks a bad one, and keeps the file private', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'etc', 'send.json');
  const answers = ['y', 'yes', 'key-from-anu', '16', '2000', '32', '30', '120', '10', '5', '86400', '300', '/opt/diode/bin/diode', 'rng', '7', '900'];
  const result = await qpool(dir, ['setup', 'send', '-o', file], answers);
  t.is(result.code, 0, result.stderr);
  t.regex(
    result.stdout,
    /Legacy API: bytes per block \(1-1024\) \[64\]: 2000\n {2}"2000" is not usable: the answer must be a whole number, from 1 to 1024\nLegacy API: bytes per block/,
  );
  t.regex(result.stdout, /Legacy API: seconds between requests \(at least 60\) \[3600\]: 30\n {2}"30" is not usable/);
  t.notRegex(result.stdout, /key-from-anu/, 'the API key is not shown');
  t.regex(result.stdout, new RegExp(`Next, on this machine: qpool collect -c ${file}\n`));
  t.is(await modeOf(file), 0o600);
  const config = await readConfig(file);
  validateConfig(collectFileSchema, config);
  t.deepEqual(config, {
    anu: {
      timeout_seconds: 300,
      keyed: { enabled: true, api_key: 'key-from-anu', length: 10, size: 5, interval_seconds: 86400 },
      legacy: { enabled: true, length: 16, size: 32, interval_seconds: 120 },
    },
    collect: { retry_limit: 7 },
    diode: { send_command: ['/opt/diode/bin/diode', 'stream-send', '--channel', 'rng', '--no-colour'], timeout_seconds: 900 },
  });
});

test('setup send: no source at all, or keyed without a key, is explained and asked again', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'send.json');
  // Enter for every question after these: the end of input is no answer.
  const result = await qpool(dir, ['setup', 'send', '-o', file], ['n', 'n', 'no', 'y', '', 'n', ...Array<string>(20).fill('')]);
  t.is(result.code, 0, result.stderr);
  t.regex(result.stdout, /At least one source is needed/);
  t.regex(result.stdout, /The keyed API cannot be used without its key/);
  const config = await readConfig(file);
  validateConfig(collectFileSchema, config);
  t.like(config, { anu: { keyed: { enabled: false }, legacy: { enabled: true, length: 1024, size: 64, interval_seconds: 3600 } } });
});

test('every prompt skipped (empty lines) writes a valid config for either side', async (t) => {
  const dir = await tempDir(t);
  for (const answers of [Array<string>(30).fill('')]) {
    const send = join(dir, `send-${answers.length}.json`);
    const sent = await qpool(dir, ['setup', 'send', '-o', send], answers);
    t.is(sent.code, 0, sent.stderr);
    const sendConfig = validateConfig(collectFileSchema, await readConfig(send));
    t.like(sendConfig, { anu: { timeout_seconds: 180, keyed: { enabled: false }, legacy: { enabled: true } }, collect: { retry_limit: 5 } });
    t.deepEqual(sendConfig.diode.send_command, ['diode', 'stream-send', '--channel', 'qpool', '--no-colour']);

    const recv = join(dir, `recv-${answers.length}.json`);
    const received = await qpool(dir, ['setup', 'recv', '-o', recv], answers);
    t.is(received.code, 0, received.stderr);
    t.is(await modeOf(recv), 0o600);
    const recvConfig = validateConfig(serveFileSchema, await readConfig(recv));
    t.like(recvConfig.server, { listen: { host: '127.0.0.1', port: 8099 }, max_entries: 100000, served_history: 10000 });
    t.deepEqual(recvConfig.server.receive_command, ['diode', 'stream-recv', '--channel', 'qpool', '--no-colour']);
    const poolFile = recvConfig.server.pool_file ?? '';
    t.true(poolFile === '/var/lib/qpool/pool.bin' || poolFile === join(dir, '.local/state/qpool/pool.bin'), poolFile);
    const passphrase = /^ {4}export APP_POOL_KEY='([^']+)'$/m.exec(received.stdout)?.[1] ?? '';
    t.true(passphrase.length >= 32, received.stdout);
    t.false((await readFile(recv, 'utf8')).includes(passphrase), 'the passphrase is stored nowhere');
    t.regex(received.stdout, new RegExp(`delete\\s+both ${poolFile} and ${poolFile}\\.hot`));
  }
});

test('setup recv writes the answers, warns about a non-loopback address and re-asks bad ones', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'recv.json');
  const answers = ['localhost', '0.0.0.0:9000', '5000', '0', 'my diode', 'diode-x', 'link', 'stream-send', 'auto-stream-recv', 'y', 'pool.bin', '~/pool/p.bin'];
  const result = await qpool(dir, ['setup', 'recv', '-o', file], answers);
  t.is(result.code, 0, result.stderr);
  t.regex(result.stdout, /\[127\.0\.0\.1:8099\]: localhost\n {2}server\.listen must be host:port/);
  t.regex(result.stdout, /not a loopback address\. The API has no authentication/);
  // What a value costs in the pool: its entry (actors/qpool/pool/value-batch.ts), not a kilobyte.
  t.regex(result.stdout, new RegExp(`Pool capacity in values \\(${entryBytes} bytes of memory each\\)`));
  t.regex(result.stdout, /no spaces, please/);
  t.regex(result.stdout, /please answer stream-recv or auto-stream-recv/);
  t.regex(result.stdout, /pool\.bin\n {2}server\.pool_file must be an absolute path/);
  t.regex(result.stdout, /export APP_POOL_KEY='[\w-]{43}'\n {4}qpool serve -c /);
  t.deepEqual(await readConfig(file), {
    server: {
      listen: '0.0.0.0:9000',
      max_entries: 5000,
      served_history: 0,
      receive_command: ['diode-x', 'auto-stream-recv', '--channel', 'link', '--no-colour'],
      pool_file: join(dir, 'pool/p.bin'),
    },
  });
  validateConfig(serveFileSchema, await readConfig(file));
});

// The end of input is no answer; a config and a passphrase from defaults nobody chose are not written.
test('input that ends before the last question writes nothing and exits 1, for either side', async (t) => {
  const dir = await tempDir(t);
  for (const side of ['send', 'recv'] as const) {
    for (const answers of [[], ['', '']]) {
      const file = join(dir, `${side}-${answers.length}.json`);
      const result = await qpool(dir, ['setup', side, '-o', file], answers);
      t.is(result.code, 1, result.stdout);
      t.regex(result.stderr, /^qpool: the input ended before ".+" was answered \(Enter takes the default\); nothing was written$/m);
      t.notRegex(result.stdout, /APP_POOL_KEY|Wrote /);
      t.false(existsSync(file), 'no config is written');
    }
  }
});

test('setup recv without a pool file prints no passphrase', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'recv.json');
  const result = await qpool(dir, ['setup', 'recv', '-o', file], ['', '', '', '', '', '', 'n']);
  t.is(result.code, 0, result.stderr);
  t.notRegex(result.stdout, /APP_POOL_KEY/);
  t.regex(result.stdout, /Next, on this machine: qpool serve -c /);
  const config = validateConfig(serveFileSchema, await readConfig(file));
  t.is(config.server.pool_file, undefined);
});

test('an existing file is kept unless --force is given', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'qpool.json');
  await writeFile(file, 'precious\n');
  const refused = await qpool(dir, ['setup', 'send', '-o', file]);
  t.is(refused.code, 1);
  t.regex(refused.stderr, /exists; not overwriting it \(pass --force/);
  t.is(await readFile(file, 'utf8'), 'precious\n');
  t.notRegex(refused.stdout, /\?/, 'refused before the first question');
  const forced = await qpool(dir, ['setup', 'recv', '--force', '-o', file], Array<string>(30).fill(''));
  t.is(forced.code, 0, forced.stderr);
  t.is(await modeOf(file), 0o600);
  validateConfig(serveFileSchema, await readConfig(file));
});

test('qpool sample-config prints a config valid for both collect and serve, with every section', async (t) => {
  const dir = await tempDir(t);
  const result = await qpool(dir, ['sample-config']);
  t.is(result.code, 0, result.stderr);
  const sample = JSON.parse(result.stdout) as Record<string, Record<string, unknown>>;
  t.deepEqual(Object.keys(sample), ['anu', 'collect', 'diode', 'server']);
  validateConfig(collectFileSchema, sample);
  validateConfig(serveFileSchema, sample);
  t.like(sample, {
    anu: { keyed: { enabled: false }, legacy: { enabled: true }, demo: { enabled: false } },
    diode: { send_command: ['diode', 'stream-send', '--channel', 'qpool', '--no-colour'] },
    server: { receive_command: ['diode', 'stream-recv', '--channel', 'qpool', '--no-colour'], pool_file: '/var/lib/qpool/pool.bin' },
  });
  t.regex(String((sample.anu?.keyed as { api_key?: unknown }).api_key), /quantumnumbers\.anu\.edu\.au/);
});

test('qpool sample-config does not offer hot_entries, which changes nothing', async (t) => {
  const result = await qpool(await tempDir(t), ['sample-config']);
  t.is(result.code, 0, result.stderr);
  t.false(result.stdout.includes('hot_entries'), result.stdout);
});

test('qpool setup --help describes it; an unknown side exits 2', async (t) => {
  const dir = await tempDir(t);
  const help = await qpool(dir, ['setup', '--help']);
  t.is(help.code, 0);
  t.regex(help.stdout, /Usage: qpool setup \[options\] <side>/);
  t.regex(help.stdout, /send or recv/);
  t.regex(help.stdout, /-o, --output <file>/);
  t.regex(help.stdout, /--force/);
  const bogus = await qpool(dir, ['setup', 'bogus', '-o', join(dir, 'x.json')]);
  t.is(bogus.code, 2);
  t.regex(bogus.stderr, /<side> must be send or recv, not "bogus"/);
  const missing = await qpool(dir, ['setup']);
  t.is(missing.code, 2);
  t.regex(missing.stderr, /missing required argument 'side'/);
});
