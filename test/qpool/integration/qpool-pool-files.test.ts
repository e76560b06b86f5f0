// The pool files of qpool serve as a user meets them: kept across a normal restart, and refused, not
// overwritten, when the passphrase is wrong or a file was altered. The files are made by a real serve
// run (values fed through the diode double, a few served, SIGTERM), then copied into each test's own
// folder, tampered with, and served from.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { PoolStatus } from '../../../actors/qpool/pool/protocol.js';
import { journalCountBytes } from '../../../actors/qpool/sealed/journal-count.js';
import { DiodeDouble } from '../../helpers/diode-double.js';
import { startProcess } from '../../helpers/process.js';
import {
  freeListen,
  modeOf,
  poolStatus,
  qpoolBin,
  startServe,
  tempDir,
  valueLines,
  waitForStatus,
  writeConfig,
  type RunningServe,
} from '../../helpers/qpool.js';

const passphrase = 'correct horse battery staple';
/** Magic, passphrase salt, iterations, file salt (actors/qpool/sealed/sealed.ts). */
const headerBytes = 8 + 16 + 4 + 32;
/** A journal's records follow its header and its record count. */
const journalRecordsStart = headerBytes + journalCountBytes;

/** Where each complete record of a journal starts: its length, the length's complement (4 bytes each), the sealed record. */
function recordOffsets(journal: Buffer): number[] {
  const offsets: number[] = [];
  for (
    let offset = journalRecordsStart;
    offset + 8 <= journal.length && offset + 8 + journal.readUInt32BE(offset) <= journal.length;
    offset += 8 + journal.readUInt32BE(offset)
  ) {
    offsets.push(offset);
  }
  return offsets;
}

interface PoolFixture {
  snapshot: Buffer;
  journal: Buffer;
  /** Status just before the server that wrote the files stopped. */
  status: PoolStatus;
  fed: string[];
  served: string[];
}

async function diodeDouble(t: ExecutionContext): Promise<DiodeDouble> {
  const double = await DiodeDouble.create(t);
  t.teardown(() => double.cleanup());
  return double;
}

/** A folder with a serve config whose pool file is `<dir>/pool/pool.bin`. */
async function poolSetup(t: ExecutionContext): Promise<{ dir: string; poolFile: string; config: string; double: DiodeDouble }> {
  const dir = await tempDir(t, 'qpool-files-');
  const double = await diodeDouble(t);
  const poolFile = join(dir, 'pool', 'pool.bin');
  // stream-recv ends by itself, so nothing outlives a server that stops on its own.
  const config = await writeConfig(dir, { server: { listen: await freeListen(), receive_command: double.receiveCommand('stream-recv'), pool_file: poolFile } });
  return { dir, poolFile, config, double };
}

async function sigterm(t: ExecutionContext, serve: RunningServe): Promise<void> {
  process.kill(serve.process.child.pid ?? 0, 'SIGTERM');
  t.is(await serve.process.exited, 0);
}

async function takeHex(url: string): Promise<string> {
  const response = await fetch(`${url}api/random/hex`);
  const body = await response.text();
  if (response.status !== 200) throw new Error(`GET /api/random/hex answered ${response.status}: ${body}`);
  return body.trim();
}

/** Made once, by whichever test asks first; the files are kept in memory, each test writes its own copy. */
let fixtureMade: Promise<PoolFixture> | undefined;

function poolFixture(t: ExecutionContext): Promise<PoolFixture> {
  return (fixtureMade ??= makeFixture(t));
}

async function makeFixture(t: ExecutionContext): Promise<PoolFixture> {
  const { poolFile, config, double } = await poolSetup(t);
  const serve = await startServe(t, config, { ...double.env, APP_POOL_KEY: passphrase });
  const fed = Array.from({ length: 40 }, () => randomBytes(128).toString('hex'));
  double.enqueue(valueLines(fed));
  await waitForStatus(serve.url, (status) => status.available === 40);
  const served: string[] = [];
  for (let index = 0; index < 6; index++) served.push(await takeHex(serve.url));
  const status = await poolStatus(serve.url);
  process.kill(serve.process.child.pid ?? 0, 'SIGTERM');
  const code = await serve.process.exited;
  if (code !== 0) throw new Error(`the server that made the pool files ended with ${code}:\n${serve.process.stderr()}`);
  for (const path of [poolFile, `${poolFile}.hot`]) {
    const mode = await modeOf(path);
    if (mode !== 0o600) throw new Error(`${path} has mode ${mode.toString(8)}, not 600`);
  }
  return { snapshot: await readFile(poolFile), journal: await readFile(`${poolFile}.hot`), status, fed, served };
}

/** The fixture's files, altered by `tamper`, in a new folder; returns what a serve run needs. */
async function tamperedPool(t: ExecutionContext, tamper: (files: { snapshot: Buffer; journal: Buffer }) => void = () => {}) {
  const fixture = await poolFixture(t);
  const setup = await poolSetup(t);
  const files = { snapshot: Buffer.from(fixture.snapshot), journal: Buffer.from(fixture.journal) };
  tamper(files);
  await mkdir(join(setup.dir, 'pool'), { recursive: true, mode: 0o700 });
  await writeFile(setup.poolFile, files.snapshot, { mode: 0o600 });
  await writeFile(`${setup.poolFile}.hot`, files.journal, { mode: 0o600 });
  return { ...setup, files, fixture };
}

/** Runs serve and waits for it to end on its own; a server still running after 20 s fails the test. */
async function serveUntilExit(t: ExecutionContext, config: string, env: NodeJS.ProcessEnv): Promise<{ code: number | NodeJS.Signals; output: string }> {
  const serve = startProcess(t, process.execPath, [qpoolBin, 'serve', '-c', config], env);
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([serve.exited, new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), 20_000)))]);
  clearTimeout(timer);
  const output = `${serve.stdout()}${serve.stderr()}`;
  if (code === 'hung') throw new Error(`qpool serve was still running after 20 s:\n${output}`);
  return { code, output };
}

async function refusedAndUntouched(
  t: ExecutionContext,
  tamper: ((files: { snapshot: Buffer; journal: Buffer }) => void) | undefined,
  key = passphrase,
): Promise<void> {
  const { dir, poolFile, config, double, files } = await tamperedPool(t, tamper);
  const listing = await readdir(join(dir, 'pool'));
  const { code, output } = await serveUntilExit(t, config, { ...double.env, APP_POOL_KEY: key });
  t.not(code, 0, output);
  t.regex(output, /could not be decrypted/);
  t.notRegex(output, /^http:\/\//m, 'the server never listened');
  t.true((await readFile(poolFile)).equals(files.snapshot), `${poolFile} was changed`);
  t.true((await readFile(`${poolFile}.hot`)).equals(files.journal), `${poolFile}.hot was changed`);
  t.deepEqual(await readdir(join(dir, 'pool')), listing, 'no file was added or removed');
}

function flip(bytes: Buffer, offset: number): void {
  bytes[offset] = bytes[offset]! ^ 0x01;
}

test('a normal restart keeps the pool, its served count, and what was served stays served', async (t) => {
  const { poolFile, config, double, fixture } = await tamperedPool(t);
  const serve = await startServe(t, config, { ...double.env, APP_POOL_KEY: passphrase });
  t.deepEqual(await poolStatus(serve.url), fixture.status);
  t.like(fixture.status, { available: 34, served_total: 6 });
  t.is(await modeOf(poolFile), 0o600);
  t.is(await modeOf(`${poolFile}.hot`), 0o600);

  const rest: string[] = [];
  for (let index = 0; index < 34; index++) rest.push(await takeHex(serve.url));
  const empty = await fetch(`${serve.url}api/random`);
  t.is(empty.status, 503);
  t.deepEqual(await empty.json(), { error: 'pool empty' });
  t.like(await poolStatus(serve.url), { available: 0, served_total: 40 });
  // LIFO on both sides of the restart: the newest first, each once.
  t.deepEqual([...fixture.served, ...rest], [...fixture.fed].reverse());

  // The same values replayed over the diode after the restart stay out; a new one last shows the chunk was read.
  const marker = randomBytes(128).toString('hex');
  double.enqueue(valueLines([...fixture.fed, marker]));
  t.like(await waitForStatus(serve.url, (status) => status.available > 0), { available: 1, served_total: 40 });
  t.is(await takeHex(serve.url), marker);
  await sigterm(t, serve);
  t.is(await modeOf(poolFile), 0o600);
  t.is(await modeOf(`${poolFile}.hot`), 0o600);
});

test('a wrong passphrase: serve exits, says the pool could not be decrypted, files untouched', async (t) => {
  await refusedAndUntouched(t, undefined, 'not the passphrase');
});

test('a truncated pool file is refused and left as it is', async (t) => {
  await refusedAndUntouched(t, (files) => {
    files.snapshot = files.snapshot.subarray(0, Math.floor(files.snapshot.length / 2));
  });
});

test('a journal cut inside its header is refused and left as it is', async (t) => {
  await refusedAndUntouched(t, (files) => {
    files.journal = files.journal.subarray(0, headerBytes - 10);
  });
});

test('one flipped byte in the pool file is refused and left as it is', async (t) => {
  await refusedAndUntouched(t, (files) => {
    flip(files.snapshot, headerBytes + Math.floor((files.snapshot.length - headerBytes) / 2));
  });
});

test('one flipped byte in a complete journal record is refused and left as it is', async (t) => {
  await refusedAndUntouched(t, (files) => {
    const [first] = recordOffsets(files.journal);
    t.not(first, undefined, 'the journal holds a complete record');
    flip(files.journal, first! + 8 + Math.floor(files.journal.readUInt32BE(first) / 2));
  });
});

test('one flipped bit in the length of the last journal record is refused, not taken for a torn tail', async (t) => {
  await refusedAndUntouched(t, (files) => {
    flip(files.journal, recordOffsets(files.journal).at(-1)! + 1);
  });
});

test('a journal cut at a record boundary is refused, not read as a shorter history', async (t) => {
  await refusedAndUntouched(t, (files) => {
    // The last record holds the last value served: without it, that value would be served again.
    const offsets = recordOffsets(files.journal);
    t.true(offsets.length >= 2, `the journal holds ${offsets.length} records`);
    files.journal = files.journal.subarray(0, offsets.at(-1));
  });
});

test('a journal cut inside its last record is refused, not taken for a write cut short by a crash', async (t) => {
  await refusedAndUntouched(t, (files) => {
    const last = recordOffsets(files.journal).at(-1)!;
    files.journal = files.journal.subarray(0, last + 8 + Math.floor(files.journal.readUInt32BE(last) / 2));
  });
});

test('an append cut short by a crash, past the counted records, is ignored with a warning', async (t) => {
  const { config, double, fixture, poolFile } = await tamperedPool(t, (files) => {
    // The start of one more record, as a crash during its write leaves it: a length, part of the body.
    const length = Buffer.alloc(8);
    length.writeUInt32BE(200);
    length.writeUInt32BE(~200 >>> 0, 4);
    files.journal = Buffer.concat([files.journal, length, randomBytes(50)]);
  });
  const serve = await startServe(t, config, { ...double.env, APP_POOL_KEY: passphrase });
  t.deepEqual(await poolStatus(serve.url), fixture.status);
  t.regex(`${serve.process.stdout()}${serve.process.stderr()}`, /ignored an incomplete last record of 58 bytes/);
  await sigterm(t, serve);
  // Started from a fresh snapshot and journal, the partial record is gone.
  t.is(recordOffsets(await readFile(`${poolFile}.hot`)).length, 0);
});

test('an empty APP_POOL_KEY with pool_file set: exit code 2, APP_POOL_KEY named, no file created', async (t) => {
  const { dir, config, double } = await poolSetup(t);
  const { code, output } = await serveUntilExit(t, config, { ...double.env, APP_POOL_KEY: '' });
  t.is(code, 2, output);
  t.regex(output, /APP_POOL_KEY/);
  t.deepEqual((await readdir(dir)).sort(), ['qpool.json'], 'neither the pool folder nor a pool file was created');
});
