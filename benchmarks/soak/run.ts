// `npm run soak -- ROLE --minutes N`: one role under a steady mixed load for N minutes, its memory,
// descriptors, threads and every thread's heap and handles sampled every 10 s; exit 1 when one of
// them grows without bound (report.ts, trend.ts) or the load saw a failure. Not part of `npm test`.
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Command, InvalidArgumentError } from 'commander';
import { Tally } from './load.js';
import { judgeAll, passed, printVerdicts } from './report.js';
import type { StartRole } from './role.js';
import { soakCert } from './roles/cert.js';
import { soakMonitor } from './roles/monitor.js';
import { soakProxy } from './roles/proxy.js';
import { soakQpool } from './roles/qpool.js';
import { soakSpeedtest } from './roles/speedtest.js';
import { Sampler } from './sampler.js';
import { minFittedSamples } from './trend.js';

const roles: Record<string, StartRole> = { cert: soakCert, monitor: soakMonitor, proxy: soakProxy, qpool: soakQpool, speedtest: soakSpeedtest };
const sampleIntervalMs = 10_000;
/** The fewest minutes that give the fit its samples (trend.ts). */
const minMinutes = (2 * minFittedSamples * sampleIntervalMs) / 60_000;

function minutes(text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value < minMinutes)
    throw new InvalidArgumentError(
      `--minutes must be a number of at least ${minMinutes} (the fit needs ${2 * minFittedSamples} samples, one each ${sampleIntervalMs / 1000} s)`,
    );
  return value;
}

/**
 * glibc's malloc settings the role's process inherits from the soak's environment
 * (`MALLOC_ARENA_MAX=2 npm run soak -- proxy`): they change RSS, so the report says which were set.
 */
function mallocSettings(): string {
  const set = Object.entries(process.env).filter(([name]) => name.startsWith('MALLOC_'));
  return set.length === 0 ? 'glibc malloc defaults' : set.map(([name, value]) => `${name}=${value ?? ''}`).join(' ');
}

async function soak(name: string, start: StartRole, soakMinutes: number): Promise<boolean> {
  const dir = await mkdtemp(join(tmpdir(), `outpost-soak-${name}-`));
  const role = await start(dir);
  const tally = new Tally();
  const sampler = new Sampler(role.target);
  const loadBefore = loadavg()[0] ?? 0;
  const stopLoad = new AbortController();
  let sampleError: string | undefined;
  try {
    console.log(`soak ${name}: ${role.load}; ${soakMinutes} min, pid ${role.target.pid}; ${mallocSettings()}`);
    const load = role.run(stopLoad.signal, tally);
    // One sample at the start and one at the end of each interval, whatever a slow sample took.
    const samples = Math.round((soakMinutes * 60_000) / sampleIntervalMs) + 1;
    const startedAt = performance.now();
    for (let index = 0; index < samples; index++) {
      await sleep(Math.max(0, startedAt + index * sampleIntervalMs - performance.now()));
      try {
        await sampler.sample();
      } catch (error) {
        sampleError = error instanceof Error ? error.message : String(error);
        break;
      }
    }
    stopLoad.abort();
    await load;
  } finally {
    stopLoad.abort();
    if (sampleError !== undefined) console.error(role.log());
    await role.stop();
    await rm(dir, { recursive: true, force: true });
  }
  const judged = judgeAll(sampler.all());
  printVerdicts(
    `soak ${name}: ${soakMinutes} min, sampled every ${sampleIntervalMs / 1000} s, line fitted over the second half (Node ${process.versions.node}, ${availableParallelism()} CPUs, load average ${loadBefore.toFixed(1)} at the start, ${(loadavg()[0] ?? 0).toFixed(1)} at the end)`,
    judged,
  );
  console.log(`load: ${tally.lines().join('; ')}`);
  if (sampleError !== undefined) console.log(`sampling stopped: ${sampleError}`);
  const ok = sampleError === undefined && tally.failureCount === 0 && passed(judged);
  console.log(
    `soak ${name}: ${ok ? 'passed' : 'FAILED'} (${judged.filter(({ trend }) => trend?.grows === true).length} series growing, ${tally.failureCount} failed operations)`,
  );
  return ok;
}

const program = new Command('soak')
  .argument('<role>', `role to soak: ${Object.keys(roles).join(', ')}`)
  .option('--minutes <n>', `minutes of load (at least ${minMinutes})`, minutes, 10)
  .action(async (name: string, options: { minutes: number }) => {
    const start = roles[name];
    if (start === undefined) program.error(`unknown role ${name}; known: ${Object.keys(roles).join(', ')}`, { exitCode: 2 });
    else process.exitCode = (await soak(name, start, options.minutes)) ? 0 : 1;
  });
await program.parseAsync();
