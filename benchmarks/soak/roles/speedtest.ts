// netspeed server under soak: the netspeed client run against it again and again (each run pings,
// downloads 25 MB and uploads 10 MB over 6 streams, at loopback speed for a second or two), one run
// started every 15 s, and the page's /api/info after each.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startServer } from '../../harness.js';
import { startInspected } from '../inspector.js';
import { every, expectStatus, type Tally } from '../load.js';
import type { StartRole } from '../role.js';

const run = promisify(execFile);
const clientBin = new URL('../../../bin/netspeed.js', import.meta.url).pathname;
/** A run loads both cores of the shared machine while it lasts: one every 15 s is steady, not a stress. */
const runEveryMs = 15_000;

export const soakSpeedtest: StartRole = async () => {
  // The inspector on a loopback port: the sampler collects garbage in every thread before a sample (inspector.ts).
  const { started: server, inspector } = await startInspected(
    (option) => startServer(new URL('../../../bin/netspeed.js', import.meta.url), ['server', '-H', '127.0.0.1', '-p', '0', '-q'], { NODE_OPTIONS: option }),
    (server) => server.stop(),
  );
  const url = server.urls[0]!;
  return {
    target: { pid: server.child.pid!, metrics: () => fetch(`${url}metrics`), inspector },
    load: `the netspeed client (--json) started every ${runEveryMs / 1000} s, /api/info after each run`,
    async run(signal: AbortSignal, tally: Tally) {
      await every(runEveryMs, signal, tally, 'client run', async () => {
        const { stdout } = await run(process.execPath, [clientBin, url, '--json'], { signal });
        const result = JSON.parse(stdout) as { download_bps?: number; upload_bps?: number };
        if (!(Number(result.download_bps) > 0 && Number(result.upload_bps) > 0)) throw new Error(`the client measured nothing: ${stdout.slice(0, 200)}`);
        tally.ok('client run with download and upload figures');
        await expectStatus(await fetch(`${url}api/info`), 200);
        tally.ok('info 200');
      });
    },
    log: () => '',
    stop: () => (inspector.close(), server.stop()),
  };
};
