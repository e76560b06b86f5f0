// hostwatch: what the dashboard costs the machine it watches, next to Glances in the same run.
// Both are polled every 2 s (as a dashboard does) for the window with ~300 processes on the machine,
// after a warm-up (both JIT and caches settle); CPU is each server process's own CPU time over the
// window, all threads included. Then the snapshot latency of each under wrk, one connection.
// Both do the same work: Glances runs only the plugins that match hostwatch's sections (glancesPlugins)
// and lists every process (its API has no row limit; max_processes_display limits its web page
// only), and hostwatch lists every row of its process table (top_processes at its most, through
// `outpost run`, since the hostwatch executable keeps the default of 40). Listening ports cost both a
// walk of every process's descriptors; Glances' nearest plugin (connections) is off by default, so a
// second Glances without it is polled in the same window, for the ratio to Glances as most run it.
// Targets: our CPU at most 1% of a core and at most a fifth of Glances'; /api/snapshot p99 under 5 ms
// and below Glances' /api/3/all.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reservePort } from '../src/http/port.js';
import { ensureTools, printTable, startServer, verdict, wrk } from './harness.js';
import { figure, ratio, summaryRow } from './summary-table.js';
import { cpuSeconds, processCount, residentBytes } from './measure/proc-stat.js';

const pollIntervalMs = 2000;
/** 40 s of polling before the window. */
const warmUpPolls = 20;
/** monitor.top_processes at its most: every row of hostwatch's process table. */
const topProcesses = 1000;
/**
 * Glances' plugins for hostwatch's sections: the machine (system, core, uptime), the time (now), CPU
 * (cpu, percpu, load), memory (mem, memswap), filesystems (fs), disks (diskio), interfaces (network),
 * temperatures (sensors), processes (processcount, processlist), containers (docker) and listening
 * ports (connections: Glances counts sockets by state from the same tables).
 */
const glancesPlugins = [
  'now',
  'system',
  'core',
  'uptime',
  'cpu',
  'percpu',
  'load',
  'mem',
  'memswap',
  'fs',
  'diskio',
  'network',
  'sensors',
  'processcount',
  'processlist',
  'docker',
  'connections',
];

export async function hostwatchBenchmark(options: { seconds: number; rounds: number }): Promise<void> {
  await ensureTools(['wrk', 'glances']);
  const windowSeconds = Math.max(40, options.seconds);
  if (options.seconds < 40) console.log('hostwatch: the CPU window is at least 40 s, after 40 s of warm-up');
  const fillers = fillProcessTable(300);
  const dir = await mkdtemp(join(tmpdir(), 'hostwatch-bench-'));
  const config = join(dir, 'host.json');
  await writeFile(config, JSON.stringify({ roles: { monitor: { host: '127.0.0.1', port: 0, top_processes: topProcesses } }, log: { level: 'warn' } }), {
    mode: 0o600,
  });
  const ours = await startServer(new URL('../bin/outpost.js', import.meta.url), ['run', '-c', config]);
  const glances = await startGlances(glancesPlugins);
  const glancesNoPorts = await startGlances(glancesPlugins.filter((plugin) => plugin !== 'connections'));
  try {
    const ourUrl = `${ours.urls[0]}api/snapshot`;
    // Both warm up: the first reading of every process, Glances' first refresh, and the major
    // collections V8 runs in each thread once start-up's garbage stops growing (measured: a
    // monitor-only outpost, idle, used 0.64% of a core over the minute from 5 s after start, 0.29%
    // over the minute from 60 s; the difference was V8's GC helper threads). The window measures
    // what the dashboard costs while it runs, not its start.
    const everyServer = [ourUrl, glances.url, glancesNoPorts.url];
    await Promise.all(everyServer.map((url) => fetch(url)));
    for (let poll = 0; poll < warmUpPolls; poll++) {
      await Promise.all(everyServer.map(timedFetch));
      await new Promise((resolve) => setTimeout(resolve, pollIntervalMs));
    }
    const processes = processCount();
    const oursAtStart = { cpu: cpuSeconds(ours.child.pid!), rss: residentBytes(ours.child.pid!) };
    const glancesAtStart = cpuSeconds(glances.child.pid!);
    const noPortsAtStart = cpuSeconds(glancesNoPorts.child.pid!);
    const startedAt = performance.now();
    while (performance.now() - startedAt < windowSeconds * 1000) {
      const tickAt = performance.now();
      await Promise.all(everyServer.map(timedFetch));
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, pollIntervalMs - (performance.now() - tickAt))));
    }
    const elapsed = (performance.now() - startedAt) / 1000;
    const ourCpu = ((cpuSeconds(ours.child.pid!) - oursAtStart.cpu) / elapsed) * 100;
    const glancesCpu = ((cpuSeconds(glances.child.pid!) - glancesAtStart) / elapsed) * 100;
    const noPortsCpu = ((cpuSeconds(glancesNoPorts.child.pid!) - noPortsAtStart) / elapsed) * 100;
    const rssGrowth = residentBytes(ours.child.pid!) - oursAtStart.rss;
    const ourRows = ((await (await fetch(ourUrl)).json()) as { processes: unknown[] }).processes.length;
    const glancesRows = ((await (await fetch(glances.url)).json()) as { processlist: unknown[] }).processlist.length;
    const settings = `hostwatch top_processes ${topProcesses} (${ourRows} rows: one per parent and name), Glances ${glancesPlugins.length} plugins (${glancesRows} rows: one per process)`;
    // Latency alone: one client asking again as soon as it has an answer.
    const ourLatency = await wrk(ourUrl, { connections: 1, seconds: 5 });
    const glancesLatency = await wrk(glances.url, { connections: 1, seconds: 5 });
    const noPortsLatency = await wrk(glancesNoPorts.url, { connections: 1, seconds: 5 });

    printTable(
      `hostwatch: polled every 2 s for ${elapsed.toFixed(0)} s with ${processes} processes; latency by wrk -c1; ${settings} (Node ${process.versions.node})`,
      ['server', 'CPU % of a core', 'snapshot p50 ms', 'snapshot p99 ms', 'ratio (CPU)', 'ratio (p99)'],
      [
        [`Glances 3, --enable-plugin ${glancesPlugins.join(',')} (anchor)`, glancesCpu, glancesLatency.latencyP50Ms, glancesLatency.latencyP99Ms, 1, 1],
        [
          'Glances 3, the same without connections (its default)',
          noPortsCpu,
          noPortsLatency.latencyP50Ms,
          noPortsLatency.latencyP99Ms,
          noPortsCpu / glancesCpu,
          noPortsLatency.latencyP99Ms / glancesLatency.latencyP99Ms,
        ],
        [
          `hostwatch, top_processes ${topProcesses}`,
          ourCpu,
          ourLatency.latencyP50Ms,
          ourLatency.latencyP99Ms,
          ourCpu / glancesCpu,
          ourLatency.latencyP99Ms / glancesLatency.latencyP99Ms,
        ],
      ],
    );
    summaryRow({
      benchmark: `hostwatch: CPU over ${elapsed.toFixed(0)} s polled every 2 s with ${processes} processes, and a snapshot's p99 (wrk -c1)`,
      ours: `${figure(ourCpu)}% of a core, p99 ${figure(ourLatency.latencyP99Ms)} ms`,
      anchor: `Glances 3, the same polls of its web API; ${settings}`,
      anchorFigure: `${figure(glancesCpu)}% of a core, p99 ${figure(glancesLatency.latencyP99Ms)} ms`,
      ratio: `${ratio(ourCpu, glancesCpu)} (p99 ${ratio(ourLatency.latencyP99Ms, glancesLatency.latencyP99Ms)})`,
    });
    summaryRow({
      benchmark: 'hostwatch: the same, against Glances without its connections plugin (off by default)',
      ours: `${figure(ourCpu)}% of a core, p99 ${figure(ourLatency.latencyP99Ms)} ms`,
      anchor: `Glances 3, ${glancesPlugins.length - 1} plugins, the same polls`,
      anchorFigure: `${figure(noPortsCpu)}% of a core, p99 ${figure(noPortsLatency.latencyP99Ms)} ms`,
      ratio: `${ratio(ourCpu, noPortsCpu)} (p99 ${ratio(ourLatency.latencyP99Ms, noPortsLatency.latencyP99Ms)})`,
    });
    console.log(`memory: hostwatch RSS ${(rssGrowth / 1024).toFixed(0)} KiB different at the end of the window than at its start`);
    console.log(
      `CPU at most 1% of a core: ${verdict(ourCpu <= 1)}; at most a fifth of Glances': ${verdict(ourCpu <= glancesCpu / 5)}; of Glances' without connections: ${verdict(ourCpu <= noPortsCpu / 5)}`,
    );
    console.log(
      `snapshot p99 under 5 ms: ${verdict(ourLatency.latencyP99Ms < 5)}; lower than Glances': ${verdict(ourLatency.latencyP99Ms < glancesLatency.latencyP99Ms)}`,
    );
  } finally {
    glances.child.kill('SIGTERM');
    glancesNoPorts.child.kill('SIGTERM');
    await ours.stop();
    for (const filler of fillers) filler.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
}

/** Starts idle processes until the machine has about `target` of them. */
function fillProcessTable(target: number): ChildProcess[] {
  const count = Math.max(0, target - processCount());
  return Array.from({ length: count }, () => spawn('sleep', ['3600'], { stdio: 'ignore' }));
}

async function timedFetch(url: string): Promise<number> {
  const startedAt = performance.now();
  const response = await fetch(url);
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  return performance.now() - startedAt;
}

async function startGlances(enabled: readonly string[]): Promise<{ child: ChildProcess; url: string }> {
  const port = await reservePort('127.0.0.1');
  const plugins = ['--disable-plugin', 'all', '--enable-plugin', enabled.join(',')];
  const child = spawn('glances', ['-w', '--disable-webui', '-B', '127.0.0.1', '-p', String(port), '-t', '2', ...plugins], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}/api/3/all`;
  for (let attempt = 0; attempt < 100; attempt++) {
    if (
      await fetch(url).then(
        (response) => response.ok,
        () => false,
      )
    )
      return { child, url };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill('SIGKILL');
  throw new Error('glances did not start its API within 20 s');
}
