// Loaded by test/run.sh into each ava worker (`--node-arguments=--import=...`) when
// OUTPOST_TEST_FILE_TIMES names a file: at the worker's exit it appends one line, the test file, its
// wall time, the CPU of the worker and of the processes it waited for (outposts, Pebble, PowerDNS,
// Chromium) and when it ended (Unix seconds), so a run shows which files wait and which use the
// cores, and how many files ran at each moment. Measurement only: test-only.
import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { isMainThread } from 'node:worker_threads';

const output = process.env.OUTPOST_TEST_FILE_TIMES;
/** /proc's clock ticks per second (USER_HZ), 100 on every Linux architecture Node runs on. */
const ticksPerSecond = 100;

// Only ava's worker process: the threads and processes a test forks inherit this import, and a
// 'message' listener would keep a forked process's IPC channel, and so the process, alive.
const avaWorker = isMainThread && process.send !== undefined && process.argv[1]?.endsWith('/ava/lib/worker/base.js') === true;
if (output !== undefined && avaWorker) {
  const startedAt = performance.now();
  let file: string | undefined;
  // ava sends the worker its test file in its first message; the listener goes once it is known.
  // The file is named as the run named it, relative to the project (a unit group is
  // dist/test/unit-groups/unit-tests-N.js, written by run.sh).
  const learnFile = (message: unknown) => {
    const path = /"file":"([^"]+\.js)"/.exec(JSON.stringify(message))?.[1];
    if (path === undefined) return;
    file = relative(process.cwd(), path);
    process.off('message', learnFile);
  };
  process.on('message', learnFile);
  process.on('exit', () => {
    if (file === undefined) return;
    const own = process.resourceUsage();
    // Fields 16 and 17 of /proc/self/stat (cutime, cstime), counted after the command's `)`.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const children = (Number(fields[13]) + Number(fields[14])) / ticksPerSecond;
    const wall = (performance.now() - startedAt) / 1000;
    const cpu = (own.userCPUTime + own.systemCPUTime) / 1e6;
    appendFileSync(output, `${file} ${wall.toFixed(1)} ${cpu.toFixed(1)} ${children.toFixed(1)} ${(Date.now() / 1000).toFixed(1)}\n`);
  });
}
