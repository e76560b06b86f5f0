// One headless Chromium for a whole `npm test` pass, started by test/run.sh: it prints the WebSocket
// address the browser files connect to (OUTPOST_TEST_BROWSER, read in test/helpers/browser.ts) and
// runs until its standard input closes, so it never outlives the run that started it, even killed.
// A launch costs each browser file about a second of CPU (the browser, GPU and zygote processes'
// start): 15 files paid it at every run. Each page still gets its own browser context, as before.
// Given a path, it writes there, at its end, the CPU seconds the browser used: its processes are not
// children of the run's shell (Playwright starts it detached), so the run's own CPU figures miss them.
import { writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { processTreeTotalCpuSeconds } from '../../benchmarks/measure/proc-stat.js';
import { chromiumArgs, chromiumPath } from '../../benchmarks/third-party/chromium.js';

// Playwright's own signal handlers would end the browser at SIGTERM without a clean close, leaving
// its singleton folder in /tmp at every run: this process closes it, below.
const server = await chromium.launchServer({
  executablePath: chromiumPath,
  args: chromiumArgs,
  handleSIGTERM: false,
  handleSIGINT: false,
  handleSIGHUP: false,
});
process.stdout.write(`${server.wsEndpoint()}\n`);
const cpuReport = process.argv[2];
let closing = false;
const close = () => {
  if (closing) return;
  closing = true;
  // Read before the close: the renderers' time is in their zygote's cutime, gone once it ends.
  const browserPid = server.process().pid;
  if (cpuReport !== undefined && browserPid !== undefined) writeFileSync(cpuReport, `${processTreeTotalCpuSeconds(browserPid).toFixed(0)}\n`);
  void server.close().finally(() => process.exit(0));
};
process.stdin.on('end', close).on('error', close).resume();
process.on('SIGTERM', close);
process.on('SIGINT', close);
