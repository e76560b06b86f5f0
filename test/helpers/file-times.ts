// Loaded by test/run.sh into each ava worker (`--node-arguments=--import=...`) when
// OUTPOST_TEST_FILE_TIMES names a file: when the worker ends it appends one line, the test file, its
// wall time, the CPU of the worker, the CPU of the processes it waited for (outposts, Pebble,
// PowerDNS, Chromium) and when it ended (Unix seconds), so a run shows which files wait and which use
// the cores, and how many files ran at each moment. Measurement only: test-only.
//
// ava runs each file in a worker thread of its own process (package.json's ava.workerThreads): the
// worker's CPU is then its thread's (/proc/thread-self), and the processes a file started are
// children of the process all files share, so their CPU cannot be told apart by file: that column is
// `-`. A file ava runs in a child process (`--no-worker-threads`) gets both figures.
import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { isMainThread, workerData } from 'node:worker_threads';

const output = process.env.OUTPOST_TEST_FILE_TIMES;
/** /proc's clock ticks per second (USER_HZ), 100 on every Linux architecture Node runs on. */
const ticksPerSecond = 100;

/** Fields of a /proc stat file after the command's `)`: index 11 is utime, 12 stime, 13 cutime, 14 cstime. */
function statFields(path: string): string[] {
  const stat = readFileSync(path, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function record(file: string, startedAt: number, cpu: number, children: number | undefined): void {
  if (output === undefined) return;
  const wall = (performance.now() - startedAt) / 1000;
  appendFileSync(output, `${file} ${wall.toFixed(1)} ${cpu.toFixed(1)} ${children === undefined ? '-' : children.toFixed(1)} ${(Date.now() / 1000).toFixed(1)}\n`);
}

// Only ava's own workers: the threads and processes a test starts inherit this import, and a
// 'message' listener would keep a forked process's IPC channel, and so the process, alive.
const avaProcess = isMainThread && process.send !== undefined && process.argv[1]?.endsWith('/ava/lib/worker/base.js') === true;
const avaThreadFile = isMainThread ? undefined : ((workerData as { options?: { file?: unknown } } | null)?.options?.file);

if (output !== undefined && typeof avaThreadFile === 'string') {
  const startedAt = performance.now();
  const file = relative(process.cwd(), avaThreadFile);
  process.on('exit', () => {
    const fields = statFields('/proc/thread-self/stat');
    record(file, startedAt, (Number(fields[11]) + Number(fields[12])) / ticksPerSecond, undefined);
  });
} else if (output !== undefined && avaProcess) {
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
    const fields = statFields('/proc/self/stat');
    record(file, startedAt, (own.userCPUTime + own.systemCPUTime) / 1e6, (Number(fields[13]) + Number(fields[14])) / ticksPerSecond);
  });
}
