// The qpool-serve report's sentences: the compaction, the live data of a full pool, and each target
// with its verdict.
import { loadavg, availableParallelism } from 'node:os';
import { median, verdict } from '../harness.js';
import { figure, ratio, summaryRow } from '../summary-table.js';
import type { Compaction } from './in-process.js';
import { ceilingRate, medianOf, nginxCeilingRate, type QpoolServeRun, type ServerResults } from './results.js';
import { connections, megabyte, memoryIdleMs, nginxBodyBytes, nginxCeilingSetting, rewriteAtJournalBytes } from './settings.js';

const mb = (bytes: number) => bytes / megabyte;

/** The server of this build with and without pool_file, with `threads` fronts. */
function byCase(run: QpoolServeRun, poolFile: boolean, threads: number): ServerResults {
  return run.servers.find((server) => server.spec.poolFile === poolFile && server.spec.threads === threads && server.spec.bin === undefined)!;
}

export function printCompactions(run: QpoolServeRun): void {
  const durableClean = byCase(run, true, 1).rounds.filter((round) => !round.rewritten);
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
}

export function printLiveData(run: QpoolServeRun): void {
  console.log(
    `live data of a full pool in the pool thread (in process, after GC): ${mb(run.live).toFixed(1)} MB; the rest of a pool cost above is garbage of the arrival that V8 has not handed back (when it does varies from run to run)`,
  );
}

export function printVerdicts(run: QpoolServeRun): void {
  const ceiling = ceilingRate(run);
  const rate = (server: ServerResults) => medianOf(server.rounds, (round) => round.answeredPerSecond);
  const p99 = (server: ServerResults) => medianOf(server.rounds, (round) => round.latencyP99Ms);
  const cost = (server: ServerResults) => mb(server.memory.settled - server.memory.empty);
  const durable = byCase(run, true, 1);
  const memoryOnly = byCase(run, false, 1);
  const dry = run.servers.filter((server) => server.rounds.some((round) => round.non2xx > 0 || round.availableAfter === 0));
  if (dry.length > 0) console.log(`INVALID rounds: non-2xx answers or an empty pool in ${dry.map((server) => server.spec.label).join(', ')}`);
  const durableRate = rate(durable);
  const durableP99 = p99(durable);
  const memoryRate = rate(memoryOnly);
  console.log(
    `with pool_file: ${Math.round(durableRate)} values/s (target: at least 10,000) -> ${verdict(durableRate >= 10_000)}; aim 20,000 -> ${verdict(durableRate >= 20_000)}; p99 ${durableP99.toFixed(1)} ms (target: under 20 ms) -> ${verdict(durableP99 < 20)}`,
  );
  const valueRate = median(run.valueRounds.map((entry) => entry.answeredPerSecond));
  const rewriteRate = median(run.rewrites.map((entry) => entry.perSecond));
  const setting = `wrk -t1 -c${connections} \`GET /api/random/hex\` on a full pool of 100,000, 1 front (median of ${run.rounds} x ${run.seconds} s)`;
  const nginx = nginxCeilingRate(run);
  summaryRow({
    benchmark: `qpool-serve with \`pool_file\`, every take fdatasync'd before its answer: ${setting}`,
    ours: `${figure(durableRate)} values/s, p99 ${figure(durableP99)} ms`,
    anchor: `the HTTP ceiling: the same kind of front answering a constant; nginx, 1 worker, answering ${nginxBodyBytes} bytes from memory (\`return 200\`, ${nginxCeilingSetting}); the spec design's 3.5 MB rewrite per value`,
    anchorFigure: `${figure(ceiling)} req/s; nginx ${figure(nginx)} req/s; spec design ${figure(rewriteRate)} values/s`,
    ratio: `${ratio(durableRate, ceiling)}; of nginx ${ratio(durableRate, nginx)}; ${figure(durableRate / rewriteRate)} times the spec design`,
  });
  summaryRow({
    benchmark: `qpool-serve, memory only: ${setting}`,
    ours: `${figure(memoryRate)} values/s, p99 ${figure(p99(memoryOnly))} ms`,
    anchor: 'the HTTP ceiling and nginx (above)',
    anchorFigure: `${figure(ceiling)} req/s; nginx ${figure(nginx)} req/s`,
    ratio: `${ratio(memoryRate, ceiling)}; of nginx ${ratio(memoryRate, nginx)}`,
  });
  summaryRow({
    benchmark: `qpool-serve: a full pool's memory, RSS over the empty server after ${memoryIdleMs / 1000} s idle`,
    ours: `${figure(cost(durable), 1)} MB with \`pool_file\`, ${figure(cost(memoryOnly), 1)} MB memory only`,
    anchor: "the spec design's estimate",
    anchorFigure: 'about 100 MB',
    ratio: ratio(cost(durable), 100),
  });
  console.log(
    `without pool_file: ${Math.round(memoryRate)} values/s (target: at least 30,000) -> ${verdict(memoryRate >= 30_000)}; ${(memoryRate / ceiling).toFixed(2)} of the HTTP ceiling, ${(memoryRate / nginx).toFixed(2)} of nginx's (${Math.round(nginx)} req/s; our ceiling ${(ceiling / nginx).toFixed(2)} of it), ${(memoryRate / valueRate).toFixed(2)} of the same answer without a take (${(valueRate / ceiling).toFixed(2)} of the ceiling)`,
  );
  const earlier = run.servers.find((server) => server.spec.bin !== undefined);
  if (earlier !== undefined) {
    const earlierRate = rate(earlier);
    console.log(
      `the ${earlier.spec.label}: ${Math.round(earlierRate)} values/s, ${(earlierRate / ceiling).toFixed(2)} of the same HTTP ceiling; this build ${(memoryRate / ceiling).toFixed(2)}, ${(memoryRate / earlierRate).toFixed(2)} times its values/s`,
    );
  }
  console.log(
    `full pool with pool_file: ${cost(durable).toFixed(1)} MB over the empty server, both after ${memoryIdleMs / 1000} s idle, ${mb(durable.memory.settled).toFixed(1)} MB in all (target: under 60 MB) -> ${verdict(cost(durable) < 60)}; right after filling ${mb(durable.memory.full - durable.memory.empty).toFixed(1)} MB over empty, peak ${mb(durable.memory.peak).toFixed(1)} MB; memory only: ${cost(memoryOnly).toFixed(1)} MB -> ${verdict(cost(memoryOnly) < 60)}`,
  );
  const durableMore = byCase(run, true, 2);
  const memoryMore = byCase(run, false, 2);
  console.log(
    `with server.threads 2: pool_file ${Math.round(rate(durableMore))} values/s, p99 ${p99(durableMore).toFixed(1)} ms; memory only ${Math.round(rate(memoryMore))} values/s`,
  );
  console.log(
    `load average ${run.loadBefore.toFixed(1)} when the rounds began, ${(loadavg()[0] ?? 0).toFixed(1)} at the end; wrk shares the ${availableParallelism()} CPUs with the server`,
  );
}
