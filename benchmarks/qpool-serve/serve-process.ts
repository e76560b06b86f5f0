// A `qpool serve` process under measure: started on a free port, receiving values from a ValueFeed,
// its front and pool threads told apart in /proc, filled to a full pool and left to settle before a
// round.
import { randomBytes } from 'node:crypto';
import { mkdirSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sliceValues } from '../../actors/qpool/collector/values.js';
import type { PoolStatus } from '../../actors/qpool/pool/protocol.js';
import { reservePort } from '../../src/http/port.js';
import { formatHostPort } from '../../src/net/address.js';
import { startServer, type StartedServer } from '../harness.js';
import { cpuSeconds } from '../measure/proc-stat.js';
import { inStartOrder, threads, type ThreadSample } from '../measure/proc-threads.js';
import { capacity, megabyte, passphrase, rewriteAtJournalBytes } from './settings.js';
import { ValueFeed } from './value-feed.js';

export interface Case {
  label: string;
  poolFile: boolean;
  threads: number;
  /** The qpool executable of an earlier build (`--before`); this build's otherwise. */
  bin?: URL;
  /** NODE_OPTIONS for the server (the soak's `--inspect=127.0.0.1:PORT`). */
  nodeOptions?: string;
}

export interface ServeProcess {
  spec: Case;
  server: StartedServer;
  feed: ValueFeed;
  url: string;
  pid: number;
  /** The journal (`<pool_file>.hot`); undefined when memory only. */
  hotPath: string | undefined;
  /** Thread ids of the front threads. */
  fronts: string[];
  /** Thread id of the pool thread, found at the first fill; undefined until then, or when it could not be told apart. */
  pool: string | undefined;
  stop(): Promise<void>;
}

export async function startServe(dir: string, index: number, spec: Case): Promise<ServeProcess> {
  const poolDir = join(dir, `pool-${index}`);
  mkdirSync(poolDir, { mode: 0o700 });
  const feed = await ValueFeed.create(poolDir);
  const poolFile = spec.poolFile ? join(poolDir, 'pool') : undefined;
  const config = {
    server: {
      listen: formatHostPort('127.0.0.1', await reservePort('127.0.0.1')),
      receive_command: feed.receiveCommand(),
      threads: spec.threads,
      ...(poolFile === undefined ? {} : { pool_file: poolFile }),
    },
  };
  const configPath = join(poolDir, 'qpool.json');
  await writeFile(configPath, `${JSON.stringify(config, null, 2)}\n`);
  const server = await startServer(spec.bin ?? new URL('../../bin/qpool.js', import.meta.url), ['serve', '-q', '-c', configPath], {
    APP_POOL_KEY: passphrase,
    ...(spec.nodeOptions === undefined ? {} : { NODE_OPTIONS: spec.nodeOptions }),
  });
  const pid = server.child.pid!;
  // The fronts start after the pool and the receiver are ready: the last threads made before the URL.
  const fronts = inStartOrder(threads(pid))
    .slice(-spec.threads)
    .map((thread) => thread.tid);
  return {
    spec,
    server,
    feed,
    url: server.urls[0]!,
    pid,
    hotPath: poolFile === undefined ? undefined : `${poolFile}.hot`,
    fronts,
    pool: undefined,
    async stop() {
      await server.stop();
      await feed.close();
    },
  };
}

export async function poolStatus(serve: ServeProcess): Promise<PoolStatus> {
  return (await (await fetch(`${serve.url}api/status`)).json()) as PoolStatus;
}

export function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** JSON lines of `count` fresh values, as the collector sends them. */
export function valueLines(count: number): string {
  return sliceValues(randomBytes(count * 128), 'legacy', new Date()).lines;
}

/** Sends 100,000 fresh values and waits for a full pool, its journal settled; the first fill finds the pool thread. */
export async function fill(serve: ServeProcess, first: boolean): Promise<void> {
  const before = first ? threads(serve.pid) : [];
  await serve.feed.send(valueLines(capacity));
  const deadline = Date.now() + 120_000;
  while ((await poolStatus(serve)).available !== capacity) {
    if (Date.now() > deadline) throw new Error(`${serve.spec.label}: the pool never filled`);
    await sleep(50);
  }
  await settle(serve);
  // A round starts far from the next compaction (measured on its own): a journal left close to
  // 8 MB by the arrival gets a few thousand more values to pass it now.
  for (let extra = 0; serve.hotPath !== undefined && fileSize(serve.hotPath) > rewriteAtJournalBytes - 1.5 * megabyte && extra < 3; extra++) {
    await serve.feed.send(valueLines(12_000));
    await sleep(1000);
    await settle(serve);
  }
  if (first) serve.pool = poolThread(serve, before);
}

/** The diode receiver read the whole arrival from its command's pipe; the pool thread was made just before it. */
function poolThread(serve: ServeProcess, before: ThreadSample[]): string | undefined {
  const after = threads(serve.pid);
  const grown = (thread: ThreadSample) => thread.rchar - (before.find((old) => old.tid === thread.tid)?.rchar ?? 0);
  const receiver = after.reduce((best, thread) => (grown(thread) > grown(best) ? thread : best));
  const ordered = inStartOrder(after);
  const pool = ordered[ordered.findIndex((thread) => thread.tid === receiver.tid) - 1];
  return pool === undefined || serve.fronts.includes(pool.tid) || pool.tid === String(serve.pid) ? undefined : pool.tid;
}

/**
 * Waits until the serve process is quiet for half a second: no CPU to speak of and the pool files
 * unchanged. A full pool is reported before the arrival is journaled, and past 8 MB of journal the
 * files are compacted; neither may fall into a measured round.
 */
async function settle(serve: ServeProcess): Promise<void> {
  const sizes = () => (serve.hotPath === undefined ? '' : `${fileSize(serve.hotPath)} ${fileSize(serve.hotPath.slice(0, -'.hot'.length))}`);
  const deadline = Date.now() + 60_000;
  for (let quiet = 0; quiet < 2 && Date.now() < deadline; ) {
    const before = { cpu: cpuSeconds(serve.pid), sizes: sizes() };
    await sleep(250);
    quiet = cpuSeconds(serve.pid) - before.cpu <= 0.02 && sizes() === before.sizes ? quiet + 1 : 0;
  }
}
