// events: how many events a second one publisher delivers to four subscribers through the
// supervisor's event channel. Anchor: the same batches posted straight between threads
// (hosts/events-anchor.ts), no supervisor in between. Target: at least 100,000 events a second.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { median, printTable, startServer, verdict } from './harness.js';
import { figure, ratio, summaryRow } from './summary-table.js';

const run = promisify(execFile);
const target = 100_000;

export async function eventsBenchmark(options: { rounds: number }): Promise<void> {
  const count = 200_000;
  const server = await startServer(new URL('./hosts/events-host.js', import.meta.url));
  const ours: number[] = [];
  const anchor: number[] = [];
  try {
    const base = server.urls[0]!;
    const once = async () => {
      const result = (await (await fetch(`${base}run?count=${count}`)).json()) as { ms: number; received: number[] };
      if (!result.received.every((received) => received === count)) throw new Error(`a subscriber missed events: ${result.received.join(', ')}`);
      return count / (result.ms / 1000);
    };
    await once();
    for (let round = 0; round < options.rounds; round++) {
      ours.push(await once());
      const { stdout } = await run(process.execPath, [new URL('./hosts/events-anchor.js', import.meta.url).pathname, String(count)]);
      anchor.push(count / ((JSON.parse(stdout) as { ms: number }).ms / 1000));
    }
  } finally {
    await server.stop();
  }
  const oursRate = median(ours);
  const anchorRate = median(anchor);
  printTable(
    `events: ${count} events to 4 subscribers, ${options.rounds} rounds, median (Node ${process.versions.node})`,
    ['path', 'events/s', 'ratio'],
    [
      ['direct MessagePorts, no supervisor (anchor)', Math.round(anchorRate), 1],
      ['event channel through the supervisor', Math.round(oursRate), oursRate / anchorRate],
    ],
  );
  summaryRow({
    benchmark: `events: ${figure(count)} events from one publisher to 4 subscribers through the supervisor's event channel (median of ${options.rounds})`,
    ours: `${figure(oursRate)} events/s`,
    anchor: 'the same batches posted straight between threads on MessagePorts',
    anchorFigure: `${figure(anchorRate)} events/s`,
    ratio: ratio(oursRate, anchorRate),
  });
  console.log(`event channel: ${Math.round(oursRate)} events/s to 4 subscribers (target: at least ${target}) -> ${verdict(oursRate >= target)}`);
}
