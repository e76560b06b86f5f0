// The qpool-serve report: values/s next to the anchors, where the time goes per value and per share
// of the window, every round, the compaction, memory, then the verdicts.
import { availableParallelism } from 'node:os';
import { median, printTable } from '../harness.js';
import { ceilingRate, medianOf, nginxCeilingRate, type QpoolServeRun, type ServerResults } from './results.js';
import type { RoundFigures } from './round.js';
import { connections, megabyte, memoryIdleMs, nginxBodyBytes, nginxCeilingSetting } from './settings.js';
import { printCompactions, printLiveData, printVerdicts } from './summary.js';

const dash = '-';

export function report(run: QpoolServeRun): void {
  printRates(run);
  printCostPerValue(run);
  printShares(run);
  printEveryRound(run);
  printCompactions(run);
  printMemory(run.servers);
  printLiveData(run);
  printVerdicts(run);
}

function printRates(run: QpoolServeRun): void {
  const rewriteRate = median(run.rewrites.map((entry) => entry.perSecond));
  const appendRate = median(run.appends.map((entry) => entry.perSecond));
  const ratios = (rate: number) => [rate / rewriteRate, rate / appendRate, rate / ceilingRate(run), rate / nginxCeilingRate(run)];
  const loadRow = (label: string, rounds: (typeof run)['ceilingRounds']) => {
    const rate = median(rounds.map((entry) => entry.answeredPerSecond));
    const errors = rounds.reduce((sum, entry) => sum + entry.errors, 0);
    return [label, rate, median(rounds.map((entry) => entry.latencyP50Ms)), median(rounds.map((entry) => entry.latencyP99Ms)), errors, ...ratios(rate)];
  };
  printTable(
    `qpool-serve: wrk -t1 -c${connections} GET /api/random/hex on a full pool (100,000), ${run.rounds} rounds of ${run.seconds}s, median (Node ${process.versions.node}, ${availableParallelism()} CPUs, load average ${run.loadBefore.toFixed(1)} when the rounds began)`,
    ['case', 'values/s', 'p50 ms', 'p99 ms', 'non-2xx', 'ratio to spec design', 'ratio to bare append', 'of HTTP ceiling', 'of nginx ceiling'],
    [
      [
        'spec design: 3.5 MB atomic rewrite per value (anchor a)',
        rewriteRate,
        median(run.rewrites.map((entry) => entry.p50Ms)),
        median(run.rewrites.map((entry) => entry.p99Ms)),
        dash,
        ...ratios(rewriteRate),
      ],
      [
        'bare fdatasync 600 B append per value (anchor b)',
        appendRate,
        median(run.appends.map((entry) => entry.p50Ms)),
        median(run.appends.map((entry) => entry.p99Ms)),
        dash,
        ...ratios(appendRate),
      ],
      loadRow('HTTP ceiling: front thread answers a constant', run.ceilingRounds),
      loadRow(nginxLabel, run.nginxRounds),
      loadRow('qpool serve GET /api/version: same front, no take', run.versionRounds),
      loadRow('a value answered as qpool does, no take (anchor d): the ceiling front', run.valueRounds),
      ...run.servers.map((server) => {
        const rate = medianOf(server.rounds, (round) => round.answeredPerSecond);
        return [
          server.spec.label,
          rate,
          medianOf(server.rounds, (round) => round.latencyP50Ms),
          medianOf(server.rounds, (round) => round.latencyP99Ms),
          server.rounds.reduce((sum, round) => sum + round.errors, 0),
          ...ratios(rate),
        ];
      }),
    ],
  );
}

const nginxLabel = `nginx ceiling: 1 worker answers ${nginxBodyBytes} bytes from memory (${nginxCeilingSetting})`;

const percent = (value: number) => (Number.isNaN(value) ? dash : `${value.toFixed(0)}%`);
const micros = (value: number) => (Number.isNaN(value) ? dash : value * 1e6);

function printCostPerValue(run: QpoolServeRun): void {
  printTable(
    'where the time goes, per value: group commits (pool_file) and CPU microseconds per value served, median of the rounds',
    [
      'case',
      'rounds with a compaction',
      'commits/s',
      'values/commit',
      'ms per commit',
      'serve process CPU µs/value',
      'fronts µs/value',
      'pool thread µs/value',
    ],
    [
      [
        'HTTP ceiling: front thread answers a constant',
        dash,
        dash,
        dash,
        dash,
        micros(median(run.ceilingRounds.map((entry) => entry.cpuPerRequest))),
        dash,
        dash,
      ],
      [nginxLabel, dash, dash, dash, dash, micros(median(run.nginxRounds.map((entry) => entry.cpuPerRequest))), dash, dash],
      [
        'qpool serve GET /api/version (memory only, 1 front)',
        dash,
        dash,
        dash,
        dash,
        micros(median(run.versionRounds.map((entry) => entry.cpuPerRequest))),
        dash,
        dash,
      ],
      [
        'a value answered as qpool does, no take (anchor d)',
        dash,
        dash,
        dash,
        dash,
        micros(median(run.valueRounds.map((entry) => entry.cpuPerRequest))),
        dash,
        dash,
      ],
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
}

function printShares(run: QpoolServeRun): void {
  const shares: ((round: RoundFigures) => number)[] = [
    (round) => round.poolCpu,
    (round) => round.poolRunQueue,
    (round) => round.poolDiskWait,
    (round) => round.frontCpu,
    (round) => round.frontRunQueue,
    (round) => round.serveCpu,
    (round) => round.wrkCpu,
    (round) => round.others,
  ];
  printTable(
    'where the time goes, share of the window (% of one core; pool thread: on a core, queued for a core, asleep in fdatasync), median of the rounds',
    ['case', 'pool CPU', 'pool queued', 'pool in fdatasync', 'busiest front CPU', 'front queued', 'serve process CPU', 'wrk CPU', 'other processes CPU'],
    run.servers.map((server) => [server.spec.label, ...shares.map((pick) => percent(medianOf(server.rounds, pick)))]),
  );
}

function printEveryRound(run: QpoolServeRun): void {
  const rateAndP99 = (rate: number, p99Ms: number) => `${Math.round(rate)} (${p99Ms.toFixed(1)})`;
  printTable(
    'every round: values/s (p99 ms, max ms; pool_file: pool thread in fdatasync; CPU of other processes); rounds start with the journal at least 1.5 MB short of a compaction',
    ['case', ...Array.from({ length: run.rounds }, (_, index) => `round ${index + 1}`)],
    [
      ['bare fdatasync append (anchor b)', ...run.appends.map((entry) => rateAndP99(entry.perSecond, entry.p99Ms))],
      ['qpool serve /api/version', ...run.versionRounds.map((entry) => rateAndP99(entry.answeredPerSecond, entry.latencyP99Ms))],
      ['HTTP ceiling', ...run.ceilingRounds.map((entry) => rateAndP99(entry.answeredPerSecond, entry.latencyP99Ms))],
      ['nginx ceiling', ...run.nginxRounds.map((entry) => rateAndP99(entry.answeredPerSecond, entry.latencyP99Ms))],
      ...run.servers.map((server) => [
        server.spec.label,
        ...server.rounds.map(
          (round) =>
            `${Math.round(round.answeredPerSecond)} (${round.latencyP99Ms.toFixed(1)}, ${round.latencyMaxMs.toFixed(0)}${server.spec.poolFile ? `, disk ${percent(round.poolDiskWait)}` : ''}, others ${percent(round.others)})`,
        ),
      ]),
    ],
  );
}

function printMemory(servers: ServerResults[]): void {
  const mb = (bytes: number) => bytes / megabyte;
  printTable(
    `memory: RSS of the serve process (all its threads; its receive command's process not included), MB; full = 100,000 values; the spec: a full pool uses roughly 100 MB`,
    [
      'case',
      'threads',
      `empty, ${memoryIdleMs / 1000} s idle`,
      'peak while filling',
      'full, 1 s after',
      `full, ${memoryIdleMs / 1000} s idle`,
      'pool cost (idle)',
      'pool cost (1 s after)',
      'after the rounds',
      'cost ratio to spec 100 MB',
    ],
    servers.map(({ spec, memory }) => [
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
}
