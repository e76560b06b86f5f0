// qpool-serve: values served per second by `qpool serve` under wrk (-t1 -c64, keep-alive, GET
// /api/random/hex) on a full pool, with every take fdatasync'd to the journal before it is answered
// (pool_file set) and without, with one and two front threads; and what a full pool costs in memory.
// Only 200 answers count: the pool is refilled to its 100,000 values through its receive command before
// every round, so a round never runs it dry (non-2xx must stay 0), and the round starts once the
// arrival is on disk. The compaction that comes every 8 MB of journal is measured on its own, in
// process (its pause for commits, its background part), and kept out of the rounds. Where the time goes: per-thread CPU and run-queue
// waits from /proc (the pool thread sampled for state D, asleep in fdatasync), commits counted
// in the journal, opened with the passphrase as serve opens it.
// Anchors in the same run, on the same disk as the pool file: (a) the spec's design, a 3.5 MB hot file
// rewritten atomically (tmp, fsync, rename, fsync dir) per served value, its requests/s ceiling
// (encryption left out, so the anchor flatters it); (b) a bare fdatasync'd 600-byte append, the floor
// of any durable commit made one per request; the HTTP ceiling of this machine, a front thread
// answering a constant (the actor-hop host), wrk on the same cores, and beside it an external one:
// nginx, one worker, answering a 256-byte body from memory (`return 200`); (d) the same front answering
// a constant value as qpool answers one (headers and all): what a value costs without its take.
// With `--before DIR` (the dist folder of an earlier build), that build's memory-only server is
// measured in the same rounds, against the same ceiling.
// Targets, defaults otherwise (max_entries 100000, one front): with pool_file at least 10,000 values/s
// (aim 20,000) and p99 under 20 ms; without pool_file at least 30,000 values/s; a full pool of 100,000
// values costs under 60 MB (the spec: roughly 100 MB).
// The parts are in qpool-serve/: the serve processes, a round, what is measured in process, the report.
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { atomicRewrites, fdatasyncAppends } from './anchors/durable-writes.js';
import { ensureTools, startServer, wrk, type StartedServer } from './harness.js';
import { startNginx, type Listener } from './third-party/nginx.js';
import { peakResidentBytes, residentBytes, threadCount } from './measure/proc-stat.js';
import { fullPoolCompactions, livePoolBytes } from './qpool-serve/in-process.js';
import { report } from './qpool-serve/report.js';
import type { QpoolServeRun, ServerResults } from './qpool-serve/results.js';
import { loadWithCpu, measureRound } from './qpool-serve/round.js';
import { fill, startServe, type Case, type ServeProcess } from './qpool-serve/serve-process.js';
import { connections, maxRoundSeconds, memoryIdleMs, nginxBodyBytes, nginxCeilingSetting } from './qpool-serve/settings.js';

const cases: Case[] = [
  { label: 'qpool serve, pool_file, 1 front', poolFile: true, threads: 1 },
  { label: 'qpool serve, pool_file, 2 fronts', poolFile: true, threads: 2 },
  { label: 'qpool serve, memory only, 1 front (anchor c)', poolFile: false, threads: 1 },
  { label: 'qpool serve, memory only, 2 fronts', poolFile: false, threads: 2 },
];

interface Measured extends ServerResults {
  serve: ServeProcess;
}

export async function qpoolServeBenchmark(options: { seconds: number; rounds: number; before?: string }): Promise<void> {
  await ensureTools(['wrk', 'bash', 'nginx']);
  const seconds = Math.min(options.seconds, maxRoundSeconds);
  if (options.seconds > maxRoundSeconds) console.log(`qpool-serve: rounds last ${maxRoundSeconds} s, so that 100,000 values are not all served`);
  const dir = await mkdtemp(join(tmpdir(), 'qpool-bench-'));
  const servers: Measured[] = [];
  let ceiling: StartedServer | undefined;
  let nginx: Listener | undefined;
  try {
    const before: Case[] =
      options.before === undefined
        ? []
        : [
            {
              label: `build before (${options.before}), memory only, 1 front`,
              poolFile: false,
              threads: 1,
              bin: pathToFileURL(join(resolve(options.before), 'bin', 'qpool.js')),
            },
          ];
    for (const [index, spec] of [...cases, ...before].entries()) {
      const serve = await startServe(dir, index, spec);
      servers.push({ spec, serve, rounds: [], memory: { empty: 0, emptyThreads: 0, settledThreads: 0, peak: 0, full: 0, settled: 0, afterRounds: 0 } });
    }
    ceiling = await startServer(new URL('./hosts/actor-hop-host.js', import.meta.url));
    const ceilingUrl = `${ceiling.urls[0]}direct`;
    const valueUrl = `${ceiling.urls[0]}value`;
    const nginxCeiling = await startNginx({
      dir,
      name: 'ceiling',
      workers: 1,
      server: `listen 127.0.0.1:PORT; ${nginxCeilingSetting} location / { default_type text/plain; return 200 "${'x'.repeat(nginxBodyBytes)}"; }`,
    });
    nginx = nginxCeiling;
    const nginxUrl = `http://127.0.0.1:${nginxCeiling.port}/`;
    // The same front without a take: how much of a value's cost is the take and its hop to the pool.
    const versionServer = servers.find((server) => !server.spec.poolFile && server.spec.threads === 1)!.serve;

    // Memory first, on fresh processes: empty and full, each after an idle spell (V8 gives back the
    // garbage of startup and of a large arrival late, and the passphrase job's thread ends after 60 s).
    await sleep(memoryIdleMs);
    for (const { serve, memory } of servers) memory.empty = residentBytes(serve.pid);
    for (const { serve, memory } of servers) memory.emptyThreads = threadCount(serve.pid);
    for (const { serve } of servers) await fill(serve, true);
    await sleep(1000);
    for (const { serve, memory } of servers) memory.full = residentBytes(serve.pid);
    await sleep(memoryIdleMs - 1000);
    for (const { serve, memory } of servers) {
      memory.settled = residentBytes(serve.pid);
      memory.settledThreads = threadCount(serve.pid);
      memory.peak = peakResidentBytes(serve.pid);
    }

    // Warm-up: the JIT and the connection paths, then every round starts from a full pool.
    await wrk(ceilingUrl, { connections, seconds: 1 });
    await wrk(nginxUrl, { connections, seconds: 1 });
    await wrk(`${versionServer.url}api/version`, { connections, seconds: 1 });
    for (const { serve } of servers) await wrk(`${serve.url}api/random/hex`, { connections, seconds: 1 });
    const run: QpoolServeRun = {
      seconds,
      rounds: options.rounds,
      servers,
      rewrites: [],
      appends: [],
      ceilingRounds: [],
      nginxRounds: [],
      versionRounds: [],
      valueRounds: [],
      compactions: [],
      live: 0,
      loadBefore: loadavg()[0] ?? 0,
    };
    for (let round = 0; round < options.rounds; round++) {
      run.rewrites.push(atomicRewrites(dir, 3.5e6, 2000));
      run.appends.push(fdatasyncAppends(dir, 600, 2000));
      run.compactions.push(...(await fullPoolCompactions(dir, round, 3)));
      run.ceilingRounds.push(await loadWithCpu(ceilingUrl, ceiling.child.pid!, seconds));
      run.nginxRounds.push(await loadWithCpu(nginxUrl, () => nginxCeiling.cpuSeconds(), seconds));
      run.versionRounds.push(await loadWithCpu(`${versionServer.url}api/version`, versionServer.pid, seconds));
      run.valueRounds.push(await loadWithCpu(valueUrl, ceiling.child.pid!, seconds));
      for (const { serve, rounds } of servers) {
        await fill(serve, false);
        rounds.push(await measureRound(serve, seconds));
      }
    }
    for (const { serve, memory } of servers) memory.afterRounds = residentBytes(serve.pid);
    run.live = livePoolBytes();
    report(run);
  } finally {
    await ceiling?.stop();
    await nginx?.stop();
    for (const { serve } of servers) await serve.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
