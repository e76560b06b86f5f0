// actor-hop: what answering through another actor costs against answering in the front thread.
// Target: the hop costs at most 10% of the front-thread request rate. Both routes run in the same
// process, alternately, under the same wrk load (64 connections, keep-alive).
import { ensureTools, median, printTable, startServer, verdict, wrk } from './harness.js';
import { figure, ratio, summaryRow } from './summary-table.js';

export async function actorHop(options: { seconds: number; rounds: number }): Promise<void> {
  await ensureTools(['wrk']);
  const server = await startServer(new URL('./hosts/actor-hop-host.js', import.meta.url));
  try {
    const base = server.urls[0]!;
    await wrk(`${base}direct`, { connections: 64, seconds: 1 });
    await wrk(`${base}hop`, { connections: 64, seconds: 1 });
    const direct = [];
    const hop = [];
    for (let round = 0; round < options.rounds; round++) {
      direct.push(await wrk(`${base}direct`, { connections: 64, seconds: options.seconds }));
      hop.push(await wrk(`${base}hop`, { connections: 64, seconds: options.seconds }));
    }
    const directRate = median(direct.map((result) => result.requestsPerSecond));
    const hopRate = median(hop.map((result) => result.requestsPerSecond));
    printTable(
      `actor-hop: wrk -t1 -c64, ${options.rounds} rounds of ${options.seconds}s, median (Node ${process.versions.node})`,
      ['route', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'ratio'],
      [
        [
          'front thread (anchor)',
          directRate,
          median(direct.map((r) => r.latencyP50Ms)),
          median(direct.map((r) => r.latencyP99Ms)),
          direct.reduce((s, r) => s + r.errors, 0),
          1,
        ],
        [
          'through actor, batched',
          hopRate,
          median(hop.map((r) => r.latencyP50Ms)),
          median(hop.map((r) => r.latencyP99Ms)),
          hop.reduce((s, r) => s + r.errors, 0),
          hopRate / directRate,
        ],
      ],
    );
    summaryRow({
      benchmark: `actor-hop: req/s of a route answered through another actor (wrk -t1 -c64, median of ${options.rounds} x ${options.seconds} s)`,
      ours: `${figure(hopRate)} req/s`,
      anchor: 'the same process answering in the front thread',
      anchorFigure: `${figure(directRate)} req/s`,
      ratio: ratio(hopRate, directRate),
    });
    const cost = 1 - hopRate / directRate;
    console.log(`hop cost: ${(cost * 100).toFixed(1)}% of the front-thread rate (target: at most 10%) -> ${verdict(cost <= 0.1)}`);
  } finally {
    await server.stop();
  }
}
