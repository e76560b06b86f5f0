// qpool serve under soak: a full pool of 100,000 (with pool_file, so the journal and its compaction
// run too), then 200 fresh values a second through its receive_command (as qpool-serve feeds it) and
// 200 takes a second over the four formats, so the pool stays full and every value turns over.
import { setTimeout as sleep } from 'node:timers/promises';
import { startInspected } from '../inspector.js';
import { fill, poolStatus, startServe, valueLines } from '../../qpool-serve/serve-process.js';
import { every, expectStatus, type Tally } from '../load.js';
import type { StartRole } from '../role.js';

const arrivalsPerSecond = 200;
/** Takes a tick, a tick every 100 ms: 200 a second, as many as arrive. */
const takesPerTick = 20;
const formats = ['', '/hex', '/base64', '/binary'];

export const soakQpool: StartRole = async (dir) => {
  // The inspector on a loopback port: the sampler collects garbage in every thread before a sample (inspector.ts).
  const { started: serve, inspector } = await startInspected(
    (option) => startServe(dir, 0, { label: 'soak', poolFile: true, threads: 1, nodeOptions: option }),
    (serve) => serve.stop(),
  );
  await fill(serve, false);
  let taken = 0;
  return {
    target: { pid: serve.pid, metrics: () => fetch(`${serve.url}metrics`), inspector },
    load: `a full pool of 100,000 with pool_file; ${arrivalsPerSecond} values/s through receive_command, ${takesPerTick * 10} takes/s (JSON, hex, base64, binary in turn), /api/status every 10 s`,
    async run(signal: AbortSignal, tally: Tally) {
      await Promise.all([
        every(1000, signal, tally, 'arrival of 200 values', async () => {
          await serve.feed.send(valueLines(arrivalsPerSecond));
          tally.ok('arrival of 200 values');
        }),
        every(100, signal, tally, 'take', async () => {
          await Promise.all(
            Array.from({ length: takesPerTick }, async () => {
              const format = formats[taken++ % formats.length]!;
              try {
                await expectStatus(await fetch(`${serve.url}api/random${format}`), 200);
                tally.ok(`take ${format === '' ? '/json' : format} 200`);
              } catch (error) {
                tally.failed('take', String(error));
              }
            }),
          );
        }),
        every(10_000, signal, tally, 'status', async () => {
          const status = await poolStatus(serve);
          if (status.available < status.capacity / 2) throw new Error(`the pool ran down to ${status.available}`);
          tally.ok('status, pool at least half full');
        }),
      ]);
      // Let the last arrival reach the pool before the process is stopped.
      await sleep(200);
    },
    log: () => '',
    stop: () => (inspector.close(), serve.stop()),
  };
};
