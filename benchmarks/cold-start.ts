// cold-start: process spawn to every front listening, for `outpost demo` (every role).
// Anchor: a bare Node process that listens with node:http. Target: under 500 ms.
// Beside wall time, the CPU the process used until then (all its threads, /proc): on a machine shared
// with other work, wall time says more about that work than about ours, CPU time much less.
// `--before DIST` starts an earlier build's demo in the same rounds, alternating.
import { cpuSeconds } from './measure/proc-stat.js';
import { median, printTable, startServer, verdict } from './harness.js';
import { figure, ratio, summaryRow } from './summary-table.js';

interface DemoStart {
  wallMs: number;
  startupMs: number;
  cpuMs: number;
}

async function startDemo(host: URL): Promise<DemoStart> {
  const server = await startServer(host);
  const cpuMs = cpuSeconds(server.child.pid!) * 1000;
  await server.stop();
  return { wallMs: server.wallMs, startupMs: server.startupMs, cpuMs };
}

export async function coldStart(options: { rounds: number; before?: string }): Promise<void> {
  const builds = [{ name: 'outpost demo', host: new URL('./hosts/demo-host.js', import.meta.url) }];
  if (options.before !== undefined)
    builds.push({ name: `outpost demo, ${options.before}`, host: new URL(`file://${options.before.replace(/\/$/, '')}/benchmarks/hosts/demo-host.js`) });
  const starts = builds.map(() => [] as DemoStart[]);
  const anchor: number[] = [];
  const anchorCpu: number[] = [];
  for (let round = 0; round < options.rounds; round++) {
    for (const [index, build] of builds.entries()) starts[index]!.push(await startDemo(build.host));
    const bare = await startServer(new URL('./hosts/bare-node-host.js', import.meta.url));
    anchor.push(bare.wallMs);
    anchorCpu.push(cpuSeconds(bare.child.pid!) * 1000);
    await bare.stop();
  }
  const anchorMs = median(anchor);
  const rows: (string | number)[][] = [['bare node:http (anchor)', anchorMs, median(anchorCpu), 1]];
  for (const [index, build] of builds.entries()) {
    const runs = starts[index]!;
    const wallMs = median(runs.map((run) => run.wallMs));
    const startupMs = median(runs.map((run) => run.startupMs));
    rows.push(
      [build.name, wallMs, median(runs.map((run) => run.cpuMs)), wallMs / anchorMs],
      ['  of which supervisor start to ready', startupMs, '', startupMs / anchorMs],
    );
  }
  printTable(
    `cold-start: spawn to listening, ${options.rounds} rounds, median (Node ${process.versions.node})`,
    ['process', 'ms', 'CPU ms to listening', 'ratio'],
    rows,
  );
  const oursMedian = median(starts[0]!.map((run) => run.wallMs));
  const oursCpu = median(starts[0]!.map((run) => run.cpuMs));
  summaryRow({
    benchmark: `cold-start: \`outpost demo\`, spawn to every front listening, and the CPU used until then (median of ${options.rounds})`,
    ours: `${figure(oursMedian)} ms, ${figure(oursCpu)} ms CPU`,
    anchor: 'a bare Node.js process listening with node:http',
    anchorFigure: `${figure(anchorMs)} ms, ${figure(median(anchorCpu))} ms CPU`,
    ratio: `${ratio(oursMedian, anchorMs)} (CPU ${ratio(oursCpu, median(anchorCpu))})`,
  });
  console.log(`cold start: ${oursMedian.toFixed(0)}ms (target: under 500ms) -> ${verdict(oursMedian < 500)}`);
}
