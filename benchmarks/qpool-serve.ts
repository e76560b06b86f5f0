// qpool-serve: values served per second by `qpool serve` under wrk (-t1 -c64, keep-alive, GET
// /api/random/hex) on a full pool, with every take fdatasync'd to the journal before it is answered
// (pool_file set) and without, with one and two front threads; and what a full pool costs in memory.
// Only 200 answers count: the pool is refilled to its 100,000 values through the diode double before
// every round, so a round never runs it dry (non-2xx must stay 0), and the round starts once the
// arrival is on disk. The compaction that comes every 8 MB of journal is measured on its own, in
// process (its pause for commits, its background part), and kept out of the rounds. Where the time goes: per-thread CPU and run-queue
// waits from /proc (the pool thread sampled for state D, asleep in fdatasync), commits counted
// in the journal, opened with the passphrase as serve opens it.
// Anchors in the same run, on the same disk as the pool file: (a) the spec's design, a 3.5 MB hot file
// rewritten atomically (tmp, fsync, rename, fsync dir) per served value, its requests/s ceiling
// (encryption left out, so the anchor flatters it); (b) a bare fdatasync'd 600-byte append, the floor
// of any durable commit made one per request; the HTTP ceiling of this machine, a front thread
// answering a constant (the actor-hop host), wrk on the same cores; (d) the same front answering a
// constant value as qpool answers one (headers and all): what a value costs without its take.
// With `--before DIR` (the dist folder of an earlier build), that build's memory-only server is
// measured in the same rounds, against the same ceiling.
// Targets, defaults otherwise (max_entries 100000, one front): with pool_file at least 10,000 values/s
// (aim 20,000) and p99 under 20 ms; without pool_file at least 30,000 values/s; a full pool of 100,000
// values costs under 60 MB (the spec: roughly 100 MB).
import { execFile } from 'node:child_process';
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { closeSync, fdatasyncSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PoolService } from '../actors/qpool/pool/logic.js';
import { ValuePool } from '../actors/qpool/pool/memory.js';
import { PoolFiles } from '../actors/qpool/pool/pool-files.js';
import type { PoolStatus } from '../actors/qpool/pool/protocol.js';
import { ValueBatchBuilder } from '../actors/qpool/pool/value-batch.js';
import { systemClock } from '../src/actor/clock.js';
import { DiodeDouble } from '../test/helpers/diode-double.js';
import { freeListen, valueLines, writeConfig } from '../test/helpers/qpool.js';
import { ensureTools, median, percentile, printTable, startServer, type StartedServer } from './harness.js';
import { cpuSeconds, residentBytes } from './proc-stat.js';

const run = promisify(execFile);
const passphrase = 'qpool-benchmark-passphrase';
const capacity = 100_000;
const connections = 64;
/** A round must not run the pool dry: 100,000 values last 2 s at 50,000/s (wrk takes whole seconds). */
const maxRoundSeconds = 1;
const megabyte = 1024 * 1024;
/** V8 gives back the garbage of a large arrival only after some idle time (its memory reducer). */
const memoryIdleMs = 60_000;
/** The journal is folded into a new snapshot past this size (actors/qpool/recv.ts). */
const rewriteAtJournalBytes = 8 * megabyte;

interface Case {
  label: string;
  poolFile: boolean;
  threads: number;
  /** The qpool executable of an earlier build (`--before`); this build's otherwise. */
  bin?: URL;
}

const cases: Case[] = [
  { label: 'qpool serve, pool_file, 1 front', poolFile: true, threads: 1 },
  { label: 'qpool serve, pool_file, 2 fronts', poolFile: true, threads: 2 },
  { label: 'qpool serve, memory only, 1 front (anchor c)', poolFile: false, threads: 1 },
  { label: 'qpool serve, memory only, 2 fronts', poolFile: false, threads: 2 },
];

interface Load {
  valuesPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  non2xx: number;
  socketErrors: number;
  /** wrk's own CPU time over the run, seconds. */
  wrkCpuSeconds: number;
  seconds: number;
}

interface RoundFigures extends Load {
  /** Journal appends in the window (pool_file only); NaN when the journal was compacted in it. */
  commits: number;
  /** Values served in the window, by the pool's own count. */
  served: number;
  /** Bytes the journal grew by in the window. */
  journalGrowth: number;
  /** The journal passed 8 MB in the window and was compacted meanwhile. */
  rewritten: boolean;
  poolCpu: number;
  poolRunQueue: number;
  poolDiskWait: number;
  frontCpu: number;
  /** CPU seconds per value served: the whole serve process, its fronts together, its pool thread. */
  serveCpuPerValue: number;
  frontCpuPerValue: number;
  poolCpuPerValue: number;
  frontRunQueue: number;
  serveCpu: number;
  wrkCpu: number;
  others: number;
  availableAfter: number;
}

interface Memory {
  empty: number;
  emptyThreads: number;
  settledThreads: number;
  peak: number;
  full: number;
  settled: number;
  afterRounds: number;
}

interface Server {
  spec: Case;
  server: StartedServer;
  double: DiodeDouble;
  url: string;
  pid: number;
  hotPath: string | undefined;
  fronts: string[];
  pool: string | undefined;
  rounds: RoundFigures[];
  memory: Memory;
}

export async function qpoolServeBenchmark(options: { seconds: number; rounds: number; before?: string }): Promise<void> {
  await ensureTools(['wrk', 'bash']);
  const seconds = Math.min(options.seconds, maxRoundSeconds);
  if (options.seconds > maxRoundSeconds) console.log(`qpool-serve: rounds last ${maxRoundSeconds} s, so that 100,000 values are not all served`);
  const dir = await mkdtemp(join(tmpdir(), 'qpool-bench-'));
  const servers: Server[] = [];
  let ceiling: StartedServer | undefined;
  try {
    const before: Case[] = options.before === undefined ? [] : [{ label: `build before (${options.before}), memory only, 1 front`, poolFile: false, threads: 1, bin: pathToFileURL(join(resolve(options.before), 'bin', 'qpool.js')) }];
    for (const [index, spec] of [...cases, ...before].entries()) servers.push(await startServe(dir, index, spec));
    ceiling = await startServer(new URL('./hosts/actor-hop-host.js', import.meta.url));
    const ceilingUrl = `${ceiling.urls[0]}direct`;
    const valueUrl = `${ceiling.urls[0]}value`;
    // The same front without a take: how much of a value's cost is the take and its hop to the pool.
    const versionServer = servers.find((server) => !server.spec.poolFile && server.spec.threads === 1)!;

    // Memory first, on fresh processes: empty and full, each after an idle spell (V8 gives back the
    // garbage of startup and of a large arrival late, and the passphrase job's thread ends after 60 s).
    await sleep(memoryIdleMs);
    for (const server of servers) server.memory.empty = residentBytes(server.pid);
    for (const server of servers) server.memory.emptyThreads = threadCount(server.pid);
    for (const server of servers) await fill(server, true);
    await sleep(1000);
    for (const server of servers) server.memory.full = residentBytes(server.pid);
    await sleep(memoryIdleMs - 1000);
    for (const server of servers) {
      server.memory.settled = residentBytes(server.pid);
      server.memory.settledThreads = threadCount(server.pid);
      server.memory.peak = peakResidentBytes(server.pid);
    }

    // Warm-up: the JIT and the connection paths, then every round starts from a full pool.
    await load(ceilingUrl, 1);
    await load(`${versionServer.url}api/version`, 1);
    for (const server of servers) await load(`${server.url}api/random/hex`, 1);
    const rewrites: OpRate[] = [];
    const appends: OpRate[] = [];
    const ceilingRounds: CpuLoad[] = [];
    const versionRounds: CpuLoad[] = [];
    const valueRounds: CpuLoad[] = [];
    const compactions: Compaction[] = [];
    const loadBefore = loadavg()[0] ?? 0;
    for (let round = 0; round < options.rounds; round++) {
      rewrites.push(atomicRewrites(dir, 3.5e6, 2000));
      appends.push(fdatasyncAppends(dir, 600, 2000));
      compactions.push(...(await fullPoolCompactions(dir, round, 3)));
      ceilingRounds.push(await loadWithCpu(ceilingUrl, ceiling.child.pid!, seconds));
      versionRounds.push(await loadWithCpu(`${versionServer.url}api/version`, versionServer.pid, seconds));
      valueRounds.push(await loadWithCpu(valueUrl, ceiling.child.pid!, seconds));
      for (const server of servers) {
        await fill(server, false);
        server.rounds.push(await measureRound(server, seconds));
      }
    }
    for (const server of servers) server.memory.afterRounds = residentBytes(server.pid);
    const live = livePoolBytes();
    report({ seconds, rounds: options.rounds, servers, rewrites, appends, ceilingRounds, versionRounds, valueRounds, compactions, live, loadBefore });
  } finally {
    await ceiling?.stop();
    for (const server of servers) {
      await server.server.stop();
      await server.double.cleanup();
    }
    await rm(dir, { recursive: true, force: true });
  }
}

async function startServe(dir: string, index: number, spec: Case): Promise<Server> {
  const double = await DiodeDouble.create();
  const poolDir = join(dir, `pool-${index}`);
  mkdirSync(poolDir, { mode: 0o700 });
  const poolFile = spec.poolFile ? join(poolDir, 'pool') : undefined;
  const config = {
    server: {
      listen: await freeListen(),
      receive_command: double.receiveCommand('auto-stream-recv'),
      threads: spec.threads,
      ...(poolFile === undefined ? {} : { pool_file: poolFile }),
    },
  };
  const configPath = await writeConfig(poolDir, config);
  // startServer spawns with this process's environment, read when it is called.
  const server = await withEnv({ ...double.env, APP_POOL_KEY: passphrase }, () =>
    startServer(spec.bin ?? new URL('../bin/qpool.js', import.meta.url), ['serve', '-q', '-c', configPath]),
  );
  const pid = server.child.pid!;
  // The fronts start after the pool and the receiver are ready: the last threads made before the URL.
  const fronts = threads(pid)
    .sort((a, b) => a.start - b.start || Number(a.tid) - Number(b.tid))
    .slice(-spec.threads)
    .map((thread) => thread.tid);
  return {
    spec,
    server,
    double,
    url: server.urls[0]!,
    pid,
    hotPath: poolFile === undefined ? undefined : `${poolFile}.hot`,
    fronts,
    pool: undefined,
    rounds: [],
    memory: { empty: 0, emptyThreads: 0, settledThreads: 0, peak: 0, full: 0, settled: 0, afterRounds: 0 },
  };
}

function withEnv<T>(env: Record<string, string>, start: () => T): T {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  try {
    return start();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** Queues 100,000 fresh values on the diode and waits for a full pool, its journal settled. */
async function fill(server: Server, first: boolean): Promise<void> {
  const before = first ? threads(server.pid) : [];
  const bytes = randomBytes(capacity * 128);
  const values = Array.from({ length: capacity }, (_, index) => bytes.toString('hex', index * 128, (index + 1) * 128));
  server.double.enqueue(valueLines(values));
  const deadline = Date.now() + 120_000;
  while ((await status(server.url)).available !== capacity) {
    if (Date.now() > deadline) throw new Error(`${server.spec.label}: the pool never filled`);
    await sleep(50);
  }
  await settle(server);
  // A round starts far from the next compaction (measured on its own, below): a journal left close to
  // 8 MB by the arrival gets a few thousand more values to pass it now.
  for (let extra = 0; server.hotPath !== undefined && fileSize(server.hotPath) > rewriteAtJournalBytes - 1.5 * megabyte && extra < 3; extra++) {
    server.double.enqueue(valueLines(Array.from({ length: 12_000 }, () => randomBytes(128).toString('hex'))));
    await sleep(1000);
    await settle(server);
  }
  if (first) {
    // The diode receiver read the whole arrival from its command's pipe; the pool thread was made just before it.
    const after = threads(server.pid);
    const grown = (thread: ThreadSample) => thread.rchar - (before.find((old) => old.tid === thread.tid)?.rchar ?? 0);
    const receiver = after.reduce((best, thread) => (grown(thread) > grown(best) ? thread : best));
    const ordered = after.sort((a, b) => a.start - b.start || Number(a.tid) - Number(b.tid));
    const pool = ordered[ordered.indexOf(receiver) - 1];
    server.pool = pool === undefined || server.fronts.includes(pool.tid) || pool.tid === String(server.pid) ? undefined : pool.tid;
  }
}

/**
 * Waits until the serve process is quiet for half a second: no CPU to speak of and the pool files
 * unchanged. A full pool is reported before the arrival is journaled, and past 8 MB of journal the
 * files are compacted; neither may fall into a measured round.
 */
async function settle(server: Server): Promise<void> {
  const sizes = () => (server.hotPath === undefined ? '' : `${fileSize(server.hotPath)} ${fileSize(server.hotPath.slice(0, -'.hot'.length))}`);
  const deadline = Date.now() + 60_000;
  for (let quiet = 0; quiet < 2 && Date.now() < deadline; ) {
    const before = { cpu: cpuSeconds(server.pid), sizes: sizes() };
    await sleep(250);
    quiet = cpuSeconds(server.pid) - before.cpu <= 0.02 && sizes() === before.sizes ? quiet + 1 : 0;
  }
}

async function measureRound(server: Server, seconds: number): Promise<RoundFigures> {
  const journalBefore = server.hotPath === undefined ? 0 : fileSize(server.hotPath);
  const commitsBefore = await servedRecords(server);
  const servedBefore = (await status(server.url)).served_total;
  const machineBefore = machineTicks();
  const cpuBefore = cpuSeconds(server.pid);
  const poolBefore = server.pool === undefined ? undefined : schedStat(server.pid, server.pool);
  const frontsBefore = server.fronts.map((tid) => schedStat(server.pid, tid));
  // How often the pool thread is found asleep on the disk (state D: inside fdatasync).
  const states = { disk: 0, all: 0 };
  const sampler =
    server.pool === undefined || server.hotPath === undefined
      ? undefined
      : setInterval(() => {
          const state = threadState(server.pid, server.pool!);
          states.all++;
          if (state === 'D') states.disk++;
        }, 1);
  const startedAt = performance.now();
  const result = await load(`${server.url}api/random/hex`, seconds);
  const wallSeconds = (performance.now() - startedAt) / 1000;
  if (sampler !== undefined) clearInterval(sampler);
  const serveCpu = cpuSeconds(server.pid) - cpuBefore;
  const machine = machineTicks();
  const after = await status(server.url);
  const served = after.served_total - servedBefore;
  const journalGrowth = server.hotPath === undefined ? Number.NaN : fileSize(server.hotPath) - journalBefore;
  await sleep(100);
  const commits = journalGrowth < 0 ? Number.NaN : (await servedRecords(server)) - commitsBefore;
  const share = (value: number) => (value / wallSeconds) * 100;
  const poolAfter = server.pool === undefined ? undefined : schedStat(server.pid, server.pool);
  const frontsAfter = server.fronts.map((tid) => schedStat(server.pid, tid));
  const frontDeltas = frontsAfter.map((stat, index) => ({ cpu: stat.cpu - (frontsBefore[index]?.cpu ?? 0), wait: stat.wait - (frontsBefore[index]?.wait ?? 0) }));
  const busiestFront = frontDeltas.reduce((best, front) => (front.cpu > best.cpu ? front : best), { cpu: 0, wait: 0 });
  const machineBusy = (machine.busy - machineBefore.busy) / 100;
  return {
    ...result,
    commits,
    served,
    journalGrowth,
    rewritten: journalGrowth < 0,
    poolCpu: poolAfter === undefined || poolBefore === undefined ? Number.NaN : share(poolAfter.cpu - poolBefore.cpu),
    poolRunQueue: poolAfter === undefined || poolBefore === undefined ? Number.NaN : share(poolAfter.wait - poolBefore.wait),
    poolDiskWait: states.all === 0 ? Number.NaN : (states.disk / states.all) * 100,
    frontCpu: share(busiestFront.cpu),
    serveCpuPerValue: serveCpu / served,
    frontCpuPerValue: frontDeltas.reduce((sum, front) => sum + front.cpu, 0) / served,
    poolCpuPerValue: poolAfter === undefined || poolBefore === undefined ? Number.NaN : (poolAfter.cpu - poolBefore.cpu) / served,
    frontRunQueue: share(busiestFront.wait),
    serveCpu: share(serveCpu),
    wrkCpu: share(result.wrkCpuSeconds),
    others: share(Math.max(0, machineBusy - serveCpu - result.wrkCpuSeconds)),
    availableAfter: after.available,
  };
}

interface CpuLoad extends Load {
  /** CPU seconds of the server process per answer. */
  cpuPerRequest: number;
}

async function loadWithCpu(url: string, pid: number, seconds: number): Promise<CpuLoad> {
  const before = cpuSeconds(pid);
  const result = await load(url, seconds);
  return { ...result, cpuPerRequest: (cpuSeconds(pid) - before) / (result.valuesPerSecond * result.seconds) };
}

const masterKeys = new Map<string, Buffer>();

/** Served records in the journal, each one commit; NaN without a pool file. Reads only, as serve does at start. */
async function servedRecords(server: Server): Promise<number> {
  if (server.hotPath === undefined) return Number.NaN;
  const derive = (password: string, kdf: { salt: Buffer; iterations: number }) => {
    const id = `${kdf.salt.toString('hex')}/${kdf.iterations}`;
    if (!masterKeys.has(id)) masterKeys.set(id, pbkdf2Sync(password, kdf.salt, kdf.iterations, 32, 'sha256'));
    return Promise.resolve(masterKeys.get(id)!);
  };
  const { files, loaded } = await PoolFiles.load(server.hotPath.slice(0, -'.hot'.length), passphrase, derive);
  await files.close();
  return loaded.journal.filter((record) => record.kind === 'served').length;
}

/** wrk -t1 -c64 on `url` for `seconds`; bash's `times` reports wrk's CPU time. */
async function load(url: string, seconds: number): Promise<Load> {
  const { stdout } = await run('bash', ['-c', 'wrk -t1 -c"$1" -d"$2"s --latency "$3" && times', 'wrk', String(connections), String(seconds), url], { maxBuffer: 1 << 20 });
  const count = (pattern: RegExp) => Number(pattern.exec(stdout)?.[1] ?? 0);
  const latency = (pattern: RegExp) => {
    const match = pattern.exec(stdout);
    if (match === null) return Number.NaN;
    const value = Number(match[1]);
    return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
  };
  const total = /(\d+) requests in ([\d.]+)(us|ms|s|m)\b/.exec(stdout);
  if (total === null) throw new Error(`wrk printed no request count:\n${stdout}`);
  const duration = Number(total[2]) * { us: 1e-6, ms: 1e-3, s: 1, m: 60 }[total[3] as 'us' | 'ms' | 's' | 'm'];
  const non2xx = count(/Non-2xx or 3xx responses: (\d+)/);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  // `times` prints the shell's times, then its children's: user and system.
  const children = [...stdout.matchAll(/(\d+)m([\d.]+)s (\d+)m([\d.]+)s/g)][1];
  const wrkCpuSeconds = children === undefined ? Number.NaN : Number(children[1]) * 60 + Number(children[2]) + Number(children[3]) * 60 + Number(children[4]);
  return {
    valuesPerSecond: (Number(total[1]) - non2xx) / duration,
    latencyP50Ms: latency(/50%\s+([\d.]+)(us|ms|s)/),
    latencyP99Ms: latency(/99%\s+([\d.]+)(us|ms|s)/),
    // "Latency  avg  stdev  max  +/- stdev"
    latencyMaxMs: latency(/Latency\s+\S+\s+\S+\s+([\d.]+)(us|ms|s)/),
    non2xx,
    socketErrors: socket === null ? 0 : socket.slice(1).reduce((sum, value) => sum + Number(value), 0),
    wrkCpuSeconds,
    seconds: duration,
  };
}

interface OpRate {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** Anchor (a): the spec's design, the whole hot file replaced atomically for every served value. */
function atomicRewrites(dir: string, bytes: number, forMs: number): OpRate {
  const content = randomBytes(bytes);
  const target = join(dir, 'spec-design.hot');
  return timedLoop(forMs, () => {
    const temporary = `${target}.tmp`;
    const fd = openSync(temporary, 'w', 0o600);
    for (let offset = 0; offset < content.length; ) offset += writeSync(fd, content, offset);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temporary, target);
    const folder = openSync(dir, 'r');
    fsyncSync(folder);
    closeSync(folder);
  });
}

/** Anchor (b): one fdatasync'd append per served value, the most a commit can cost less than. */
function fdatasyncAppends(dir: string, bytes: number, forMs: number): OpRate {
  const record = randomBytes(bytes);
  const fd = openSync(join(dir, 'bare-append.journal'), 'a', 0o600);
  try {
    return timedLoop(forMs, () => {
      writeSync(fd, record);
      fdatasyncSync(fd);
    });
  } finally {
    closeSync(fd);
  }
}

function timedLoop(forMs: number, operation: () => void): OpRate {
  const latencies: number[] = [];
  const startedAt = performance.now();
  while (performance.now() - startedAt < forMs) {
    const at = performance.now();
    operation();
    latencies.push(performance.now() - at);
  }
  return { perSecond: latencies.length / ((performance.now() - startedAt) / 1000), p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
}

interface Compaction {
  /** Commits wait this long: the snapshot sealed in memory and the new journal made. */
  pauseMs: number;
  /** The rest, in the background while commits go on: the snapshot written and fsync'd, the journal renamed. */
  backgroundMs: number;
  /** The same snapshot rewritten in the foreground, as at start or after a failed write: commits wait all of it. */
  rewriteMs: number;
}

/**
 * What happens once the journal passes 8 MB, on a full pool, in this process on the same disk:
 * the compaction's pause for commits and its background part, and a foreground rewrite for comparison.
 */
async function fullPoolCompactions(dir: string, round: number, times: number): Promise<Compaction[]> {
  const folder = join(dir, `rewrite-${round}`);
  mkdirSync(folder, { mode: 0o700 });
  const { files } = await PoolFiles.load(join(folder, 'pool'), 'unused', () => Promise.resolve(randomBytes(32)));
  const pool = new ValuePool(capacity, 10_000);
  pool.addAll(freshValues(capacity));
  const quiet = { error() {}, warn() {}, info() {}, debug() {} };
  const service = new PoolService(pool, 0, undefined, files, { rewriteAtJournalBytes: 8 * megabyte, retryAfterFailureMs: 1000 }, { clock: systemClock, log: quiet });
  const compactions: Compaction[] = [];
  try {
    await files.rewrite(service.snapshot());
    for (let index = 0; index < times; index++) {
      const startedAt = performance.now();
      const { written } = await files.compact(service.snapshot());
      const pauseMs = performance.now() - startedAt;
      await written;
      const backgroundMs = performance.now() - startedAt - pauseMs;
      const rewriteStartedAt = performance.now();
      await files.rewrite(service.snapshot());
      compactions.push({ pauseMs, backgroundMs, rewriteMs: performance.now() - rewriteStartedAt });
    }
  } finally {
    await files.close();
  }
  return compactions;
}

/**
 * What a full pool keeps alive in the pool thread, garbage collected before and after: 100,000
 * records ingested as the pool actor receives them (PoolService over a ValuePool, memory only),
 * the records themselves let go. The RSS figures above add what V8 has not handed back yet.
 */
function livePoolBytes(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const used = () => {
    gc();
    gc();
    const usage = process.memoryUsage();
    return usage.heapUsed + usage.external;
  };
  const quiet = { error() {}, warn() {}, info() {}, debug() {} };
  const before = used();
  const service = new PoolService(new ValuePool(capacity, 10_000), 0, undefined, undefined, { rewriteAtJournalBytes, retryAfterFailureMs: 1000 }, { clock: systemClock, log: quiet });
  for (let batch = 0; batch < capacity / 1000; batch++) service.ingest(freshValues(1000));
  const after = used();
  if (service.status().available !== capacity) throw new Error('the in-process pool did not fill');
  return after - before;
}

/** A value batch of `count` fresh values, as the diode receiver hands one to the pool. */
function freshValues(count: number): Buffer {
  const builder = new ValueBatchBuilder(count);
  const timestamp = Date.now();
  for (let index = 0; index < count; index++) builder.push(randomBytes(128), timestamp, 'legacy');
  return builder.finish();
}

interface ThreadSample {
  tid: string;
  start: number;
  rchar: number;
}

function threads(pid: number): ThreadSample[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const io = readFileSync(`/proc/${pid}/task/${tid}/io`, 'utf8');
      return [{ tid, start: Number(fields[19]), rchar: Number(/^rchar: (\d+)/m.exec(io)?.[1] ?? 0) }];
    } catch {
      return []; // The thread ended meanwhile.
    }
  });
}

/** Seconds a thread has run on a core, and waited in the run queue for one. */
function schedStat(pid: number, tid: string): { cpu: number; wait: number } {
  try {
    const [cpu = 0, wait = 0] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
    return { cpu: cpu / 1e9, wait: wait / 1e9 };
  } catch {
    return { cpu: Number.NaN, wait: Number.NaN };
  }
}

function threadState(pid: number, tid: string): string {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2);
  } catch {
    return '?';
  }
}

/** Busy CPU ticks of the whole machine (user, nice, system, irq, softirq, steal). */
function machineTicks(): { busy: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
  return { busy: user + nice + system + irq + softirq + steal };
}

function threadCount(pid: number): number {
  return Number(/^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
}

function peakResidentBytes(pid: number): number {
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

async function status(url: string): Promise<PoolStatus> {
  return (await (await fetch(`${url}api/status`)).json()) as PoolStatus;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function report(run: { seconds: number; rounds: number; servers: Server[]; rewrites: OpRate[]; appends: OpRate[]; ceilingRounds: CpuLoad[]; versionRounds: CpuLoad[]; valueRounds: CpuLoad[]; compactions: Compaction[]; live: number; loadBefore: number }): void {
  const rewriteRate = median(run.rewrites.map((entry) => entry.perSecond));
  const appendRate = median(run.appends.map((entry) => entry.perSecond));
  const ceilingRate = median(run.ceilingRounds.map((entry) => entry.valuesPerSecond));
  const medianOf = (rounds: RoundFigures[], pick: (round: RoundFigures) => number) => median(rounds.map(pick));
  const dash = '-';
  const ratios = (rate: number) => [rate / rewriteRate, rate / appendRate, rate / ceilingRate];
  const loadRow = (label: string, rounds: CpuLoad[]) => {
    const rate = median(rounds.map((entry) => entry.valuesPerSecond));
    const errors = rounds.reduce((sum, entry) => sum + entry.non2xx + entry.socketErrors, 0);
    return [label, rate, median(rounds.map((entry) => entry.latencyP50Ms)), median(rounds.map((entry) => entry.latencyP99Ms)), errors, ...ratios(rate)];
  };
  printTable(
    `qpool-serve: wrk -t1 -c${connections} GET /api/random/hex on a full pool (100,000), ${run.rounds} rounds of ${run.seconds}s, median (Node ${process.versions.node}, ${availableParallelism()} CPUs, load average ${run.loadBefore.toFixed(1)} when the rounds began)`,
    ['case', 'values/s', 'p50 ms', 'p99 ms', 'non-2xx', 'ratio to spec design', 'ratio to bare append', 'of HTTP ceiling'],
    [
      ['spec design: 3.5 MB atomic rewrite per value (anchor a)', rewriteRate, median(run.rewrites.map((entry) => entry.p50Ms)), median(run.rewrites.map((entry) => entry.p99Ms)), dash, ...ratios(rewriteRate)],
      ['bare fdatasync 600 B append per value (anchor b)', appendRate, median(run.appends.map((entry) => entry.p50Ms)), median(run.appends.map((entry) => entry.p99Ms)), dash, ...ratios(appendRate)],
      loadRow('HTTP ceiling: front thread answers a constant', run.ceilingRounds),
      loadRow('qpool serve GET /api/version: same front, no take', run.versionRounds),
      loadRow('a value answered as qpool does, no take (anchor d): the ceiling front', run.valueRounds),
      ...run.servers.map((server) => {
        const rate = medianOf(server.rounds, (round) => round.valuesPerSecond);
        return [
          server.spec.label,
          rate,
          medianOf(server.rounds, (round) => round.latencyP50Ms),
          medianOf(server.rounds, (round) => round.latencyP99Ms),
          server.rounds.reduce((sum, round) => sum + round.non2xx + round.socketErrors, 0),
          ...ratios(rate),
        ];
      }),
    ],
  );

  const percent = (value: number) => (Number.isNaN(value) ? dash : `${value.toFixed(0)}%`);
  const micros = (value: number) => (Number.isNaN(value) ? dash : value * 1e6);
  const ceilingCpu = median(run.ceilingRounds.map((entry) => entry.cpuPerRequest));
  printTable(
    'where the time goes, per value: group commits (pool_file) and CPU microseconds per value served, median of the rounds',
    ['case', 'rounds with a compaction', 'commits/s', 'values/commit', 'ms per commit', 'serve process CPU µs/value', 'fronts µs/value', 'pool thread µs/value'],
    [
      ['HTTP ceiling: front thread answers a constant', dash, dash, dash, dash, micros(ceilingCpu), dash, dash],
      ['qpool serve GET /api/version (memory only, 1 front)', dash, dash, dash, dash, micros(median(run.versionRounds.map((entry) => entry.cpuPerRequest))), dash, dash],
      ['a value answered as qpool does, no take (anchor d)', dash, dash, dash, dash, micros(median(run.valueRounds.map((entry) => entry.cpuPerRequest))), dash, dash],
      ...run.servers.map((server) => {
        const clean = server.rounds.filter((round) => !round.rewritten);
        const commits = clean.length === 0 || !server.spec.poolFile ? Number.NaN : median(clean.map((round) => round.commits / round.seconds));
        return [
          server.spec.label,
          server.spec.poolFile ? server.rounds.filter((round) => round.rewritten).length : dash,
          Number.isNaN(commits) ? dash : commits,
          Number.isNaN(commits) ? dash : median(clean.map((round) => round.served / round.commits)),
          Number.isNaN(commits) ? dash : 1000 / commits,
          micros(medianOf(server.rounds, (round) => round.serveCpuPerValue)),
          micros(medianOf(server.rounds, (round) => round.frontCpuPerValue)),
          micros(medianOf(server.rounds, (round) => round.poolCpuPerValue)),
        ];
      }),
    ],
  );
  printTable(
    'where the time goes, share of the window (% of one core; pool thread: on a core, queued for a core, asleep in fdatasync), median of the rounds',
    ['case', 'pool CPU', 'pool queued', 'pool in fdatasync', 'busiest front CPU', 'front queued', 'serve process CPU', 'wrk CPU', 'other processes CPU'],
    run.servers.map((server) => [
      server.spec.label,
      percent(medianOf(server.rounds, (round) => round.poolCpu)),
      percent(medianOf(server.rounds, (round) => round.poolRunQueue)),
      percent(medianOf(server.rounds, (round) => round.poolDiskWait)),
      percent(medianOf(server.rounds, (round) => round.frontCpu)),
      percent(medianOf(server.rounds, (round) => round.frontRunQueue)),
      percent(medianOf(server.rounds, (round) => round.serveCpu)),
      percent(medianOf(server.rounds, (round) => round.wrkCpu)),
      percent(medianOf(server.rounds, (round) => round.others)),
    ]),
  );

  printTable(
    'every round: values/s (p99 ms, max ms; pool_file: pool thread in fdatasync; CPU of other processes); rounds start with the journal at least 1.5 MB short of a compaction',
    ['case', ...Array.from({ length: run.rounds }, (_, index) => `round ${index + 1}`)],
    [
      ['bare fdatasync append (anchor b)', ...run.appends.map((entry) => `${Math.round(entry.perSecond)} (${entry.p99Ms.toFixed(1)})`)],
      ['qpool serve /api/version', ...run.versionRounds.map((entry) => `${Math.round(entry.valuesPerSecond)} (${entry.latencyP99Ms.toFixed(1)})`)],
      ['HTTP ceiling', ...run.ceilingRounds.map((entry) => `${Math.round(entry.valuesPerSecond)} (${entry.latencyP99Ms.toFixed(1)})`)],
      ...run.servers.map((server) => [
        server.spec.label,
        ...server.rounds.map(
          (round) =>
            `${Math.round(round.valuesPerSecond)} (${round.latencyP99Ms.toFixed(1)}, ${round.latencyMaxMs.toFixed(0)}${server.spec.poolFile ? `, disk ${percent(round.poolDiskWait)}` : ''}, others ${percent(round.others)})`,
        ),
      ]),
    ],
  );

  const durableClean = run.servers.find((server) => server.spec.poolFile && server.spec.threads === 1)!.rounds.filter((round) => !round.rewritten);
  const valuesPerCommit = median(durableClean.map((round) => round.served / round.commits));
  // Journal bytes per value served, commits' own bytes included; an arrival takes about 137 bytes a value.
  const servedBetweenRewrites = rewriteAtJournalBytes / median(durableClean.map((round) => round.journalGrowth / round.served));
  const figure = (pick: (compaction: Compaction) => number) => {
    const values = run.compactions.map(pick);
    return `median ${median(values).toFixed(0)} ms, max ${Math.max(...values).toFixed(0)} ms`;
  };
  console.log(
    `compaction of the full pool, in process over ${run.compactions.length}: commits wait ${figure((compaction) => compaction.pauseMs)} (snapshot sealed in memory, new journal made); the snapshot is then written in the background in ${figure((compaction) => compaction.backgroundMs)}; the same rewrite in the foreground (at start, after a failed write) holds commits ${figure((compaction) => compaction.rewriteMs)}. One comes every 8 MB of journal: after an arrival of about ${Math.round((8 * megabyte) / 137 / 1000)},000 values, and about every ${Number.isNaN(servedBetweenRewrites) ? '?' : Math.round(servedBetweenRewrites / 1000).toLocaleString('en-US')},000 values served at ${Number.isNaN(valuesPerCommit) ? '?' : valuesPerCommit.toFixed(0)} values a commit`,
  );

  const mb = (bytes: number) => bytes / megabyte;
  printTable(
    `memory: RSS of the serve process (all its threads; the diode tool's process not included), MB; full = 100,000 values; the spec: a full pool uses roughly 100 MB`,
    ['case', 'threads', `empty, ${memoryIdleMs / 1000} s idle`, 'peak while filling', 'full, 1 s after', `full, ${memoryIdleMs / 1000} s idle`, 'pool cost (idle)', 'pool cost (1 s after)', 'after the rounds', 'cost ratio to spec 100 MB'],
    run.servers.map(({ spec, memory }) => [
      spec.label,
      memory.emptyThreads === memory.settledThreads ? memory.emptyThreads : `${memory.emptyThreads} then ${memory.settledThreads}`,
      mb(memory.empty),
      mb(memory.peak),
      mb(memory.full),
      mb(memory.settled),
      mb(memory.settled - memory.empty),
      mb(memory.full - memory.empty),
      mb(memory.afterRounds),
      mb(memory.settled - memory.empty) / 100,
    ]),
  );
  console.log(`live data of a full pool in the pool thread (in process, after GC): ${mb(run.live).toFixed(1)} MB; the rest of a pool cost above is garbage of the arrival that V8 has not handed back (when it does varies from run to run)`);

  const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
  const byLabel = (poolFile: boolean, threads: number) => run.servers.find((server) => server.spec.poolFile === poolFile && server.spec.threads === threads && server.spec.bin === undefined)!;
  const durable = byLabel(true, 1);
  const memoryOnly = byLabel(false, 1);
  const dry = run.servers.filter((server) => server.rounds.some((round) => round.non2xx > 0 || round.availableAfter === 0));
  if (dry.length > 0) console.log(`INVALID rounds: non-2xx answers or an empty pool in ${dry.map((server) => server.spec.label).join(', ')}`);
  const durableRate = medianOf(durable.rounds, (round) => round.valuesPerSecond);
  const durableP99 = medianOf(durable.rounds, (round) => round.latencyP99Ms);
  const memoryRate = medianOf(memoryOnly.rounds, (round) => round.valuesPerSecond);
  const cost = mb(durable.memory.settled - durable.memory.empty);
  console.log(
    `with pool_file: ${Math.round(durableRate)} values/s (target: at least 10,000) -> ${verdict(durableRate >= 10_000)}; aim 20,000 -> ${verdict(durableRate >= 20_000)}; p99 ${durableP99.toFixed(1)} ms (target: under 20 ms) -> ${verdict(durableP99 < 20)}`,
  );
  const valueRate = median(run.valueRounds.map((entry) => entry.valuesPerSecond));
  console.log(
    `without pool_file: ${Math.round(memoryRate)} values/s (target: at least 30,000) -> ${verdict(memoryRate >= 30_000)}; ${(memoryRate / ceilingRate).toFixed(2)} of the HTTP ceiling, ${(memoryRate / valueRate).toFixed(2)} of the same answer without a take (${(valueRate / ceilingRate).toFixed(2)} of the ceiling)`,
  );
  const earlier = run.servers.find((server) => server.spec.bin !== undefined);
  if (earlier !== undefined) {
    const earlierRate = medianOf(earlier.rounds, (round) => round.valuesPerSecond);
    console.log(
      `the ${earlier.spec.label}: ${Math.round(earlierRate)} values/s, ${(earlierRate / ceilingRate).toFixed(2)} of the same HTTP ceiling; this build ${(memoryRate / ceilingRate).toFixed(2)}, ${(memoryRate / earlierRate).toFixed(2)} times its values/s`,
    );
  }
  console.log(
    `full pool with pool_file: ${cost.toFixed(1)} MB over the empty server, both after ${memoryIdleMs / 1000} s idle, ${mb(durable.memory.settled).toFixed(1)} MB in all (target: under 60 MB) -> ${verdict(cost < 60)}; right after filling ${mb(durable.memory.full - durable.memory.empty).toFixed(1)} MB over empty, peak ${mb(durable.memory.peak).toFixed(1)} MB; memory only: ${mb(memoryOnly.memory.settled - memoryOnly.memory.empty).toFixed(1)} MB -> ${verdict(mb(memoryOnly.memory.settled - memoryOnly.memory.empty) < 60)}`,
  );
  for (const threads of [2]) {
    const durableMore = byLabel(true, threads);
    const memoryMore = byLabel(false, threads);
    console.log(
      `with server.threads ${threads}: pool_file ${Math.round(medianOf(durableMore.rounds, (round) => round.valuesPerSecond))} values/s, p99 ${medianOf(durableMore.rounds, (round) => round.latencyP99Ms).toFixed(1)} ms; memory only ${Math.round(medianOf(memoryMore.rounds, (round) => round.valuesPerSecond))} values/s`,
    );
  }
  console.log(`load average ${run.loadBefore.toFixed(1)} when the rounds began, ${(loadavg()[0] ?? 0).toFixed(1)} at the end; wrk shares the ${availableParallelism()} CPUs with the server`);
}
