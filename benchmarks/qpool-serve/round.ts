// One measured round: wrk on a server for a few seconds, with where the time went read from /proc
// before and after (the serve process, its fronts, its pool thread, wrk, the rest of the machine) and
// the pool thread sampled every millisecond for state D (asleep in fdatasync).
import { setTimeout as sleep } from 'node:timers/promises';
import { wrk, type LoadResult } from '../harness.js';
import { cpuSeconds, machineBusySeconds } from '../measure/proc-stat.js';
import { schedStat, threadState } from '../measure/proc-threads.js';
import { servedRecords } from './journal.js';
import { fileSize, poolStatus, type ServeProcess } from './serve-process.js';
import { connections } from './settings.js';

export interface RoundFigures extends LoadResult {
  /** Journal appends in the window (pool_file only); NaN when the journal was compacted in it. */
  commits: number;
  /** Values served in the window, by the pool's own count. */
  served: number;
  /** Bytes the journal grew by in the window. */
  journalGrowth: number;
  /** The journal passed 8 MB in the window and was compacted meanwhile. */
  rewritten: boolean;
  /** Shares of the window, in % of one core: the pool thread on a core, queued for one, in fdatasync. */
  poolCpu: number;
  poolRunQueue: number;
  poolDiskWait: number;
  /** The busiest front thread, on a core and queued for one. */
  frontCpu: number;
  frontRunQueue: number;
  /** CPU seconds per value served: the whole serve process, its fronts together, its pool thread. */
  serveCpuPerValue: number;
  frontCpuPerValue: number;
  poolCpuPerValue: number;
  /** Shares of the window, in % of one core: the serve process, wrk, every other process. */
  serveCpu: number;
  wrkCpu: number;
  others: number;
  availableAfter: number;
}

/** GET /api/random/hex under wrk for `seconds`, on a pool filled beforehand. */
export async function measureRound(serve: ServeProcess, seconds: number): Promise<RoundFigures> {
  const journalBefore = serve.hotPath === undefined ? 0 : fileSize(serve.hotPath);
  const commitsBefore = await servedRecords(serve.hotPath);
  const servedBefore = (await poolStatus(serve)).served_total;
  const machineBefore = machineBusySeconds();
  const cpuBefore = cpuSeconds(serve.pid);
  const poolBefore = serve.pool === undefined ? undefined : schedStat(serve.pid, serve.pool);
  const frontsBefore = serve.fronts.map((tid) => schedStat(serve.pid, tid));
  // How often the pool thread is found asleep on the disk (state D: inside fdatasync).
  const states = { disk: 0, all: 0 };
  const sampler =
    serve.pool === undefined || serve.hotPath === undefined
      ? undefined
      : setInterval(() => {
          const state = threadState(serve.pid, serve.pool!);
          states.all++;
          if (state === 'D') states.disk++;
        }, 1);
  const startedAt = performance.now();
  const result = await wrk(`${serve.url}api/random/hex`, { connections, seconds });
  const wallSeconds = (performance.now() - startedAt) / 1000;
  if (sampler !== undefined) clearInterval(sampler);
  const serveCpu = cpuSeconds(serve.pid) - cpuBefore;
  const machineBusy = machineBusySeconds() - machineBefore;
  const after = await poolStatus(serve);
  const served = after.served_total - servedBefore;
  const journalGrowth = serve.hotPath === undefined ? Number.NaN : fileSize(serve.hotPath) - journalBefore;
  await sleep(100);
  const commits = journalGrowth < 0 ? Number.NaN : (await servedRecords(serve.hotPath)) - commitsBefore;
  const share = (value: number) => (value / wallSeconds) * 100;
  const poolAfter = serve.pool === undefined ? undefined : schedStat(serve.pid, serve.pool);
  const pool =
    poolAfter === undefined || poolBefore === undefined
      ? { cpu: Number.NaN, wait: Number.NaN }
      : { cpu: poolAfter.cpu - poolBefore.cpu, wait: poolAfter.wait - poolBefore.wait };
  const frontDeltas = serve.fronts.map((tid, index) => {
    const stat = schedStat(serve.pid, tid);
    return { cpu: stat.cpu - (frontsBefore[index]?.cpu ?? 0), wait: stat.wait - (frontsBefore[index]?.wait ?? 0) };
  });
  const busiestFront = frontDeltas.reduce((best, front) => (front.cpu > best.cpu ? front : best), { cpu: 0, wait: 0 });
  return {
    ...result,
    commits,
    served,
    journalGrowth,
    rewritten: journalGrowth < 0,
    poolCpu: share(pool.cpu),
    poolRunQueue: share(pool.wait),
    poolDiskWait: states.all === 0 ? Number.NaN : (states.disk / states.all) * 100,
    frontCpu: share(busiestFront.cpu),
    frontRunQueue: share(busiestFront.wait),
    serveCpuPerValue: serveCpu / served,
    frontCpuPerValue: frontDeltas.reduce((sum, front) => sum + front.cpu, 0) / served,
    poolCpuPerValue: pool.cpu / served,
    serveCpu: share(serveCpu),
    wrkCpu: share(result.wrkCpuSeconds),
    others: share(Math.max(0, machineBusy - serveCpu - result.wrkCpuSeconds)),
    availableAfter: after.available,
  };
}

export interface CpuLoad extends LoadResult {
  /** CPU seconds of the server process per answer. */
  cpuPerRequest: number;
}

/** wrk on `url` for `seconds`, with the CPU the server (the process `pid`, or what `server` counts) spent per answer. */
export async function loadWithCpu(url: string, server: number | (() => number), seconds: number): Promise<CpuLoad> {
  const used = typeof server === 'number' ? () => cpuSeconds(server) : server;
  const before = used();
  const result = await wrk(url, { connections, seconds });
  return { ...result, cpuPerRequest: (used() - before) / (result.answeredPerSecond * result.seconds) };
}
