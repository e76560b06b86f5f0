// cold-start: process spawn to every front listening, for `outpost demo` (every role).
// Anchor: a bare Node process that listens with node:http. Target: under 500 ms.
import { median, printTable, startServer, verdict } from './harness.js';

export async function coldStart(options: { rounds: number }): Promise<void> {
  const ours: number[] = [];
  const internal: number[] = [];
  const anchor: number[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const server = await startServer(new URL('./hosts/demo-host.js', import.meta.url));
    ours.push(server.wallMs);
    internal.push(server.startupMs);
    await server.stop();
    const bare = await startServer(new URL('./hosts/bare-node-host.js', import.meta.url));
    anchor.push(bare.wallMs);
    await bare.stop();
  }
  const oursMedian = median(ours);
  printTable(`cold-start: spawn to listening, ${options.rounds} rounds, median (Node ${process.versions.node})`, ['process', 'ms', 'ratio'], [
    ['bare node:http (anchor)', median(anchor), 1],
    ['outpost demo', oursMedian, oursMedian / median(anchor)],
    ['  of which supervisor start to ready', median(internal), median(internal) / median(anchor)],
  ]);
  console.log(`cold start: ${oursMedian.toFixed(0)}ms (target: under 500ms) -> ${verdict(oursMedian < 500)}`);
}
