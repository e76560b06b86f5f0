// The receiving side of qpool serve as the diode sees it: the receive command is run only when the
// pool can keep what it brings, and a command that keeps bringing nothing new (a replayed file) is
// paced like an idle link instead of being run flat out.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { DiodeDouble } from '../../helpers/diode-double.js';
import { startProcess } from '../../helpers/process.js';
import { freeListen, qpoolBin, startServe, tempDir, valueLines, waitForStatus, writeConfig } from '../../helpers/qpool.js';

const passphrase = 'receive test passphrase';

function freshValues(count: number): string[] {
  return Array.from({ length: count }, () => randomBytes(128).toString('hex'));
}

async function diodeDouble(t: ExecutionContext): Promise<DiodeDouble> {
  const double = await DiodeDouble.create(t);
  t.teardown(() => double.cleanup());
  return double;
}

/** `command`, run through a shell that first touches `marker`: whether the receive command ever ran. */
function touchingFirst(marker: string, command: string[]): string[] {
  return ['/bin/sh', '-c', 'touch "$0" && exec "$@"', marker, ...command];
}

test('with a wrong APP_POOL_KEY the receive command never runs, and the batch waiting in the diode is not lost', async (t) => {
  const dir = await tempDir(t);
  const double = await diodeDouble(t);
  const poolFile = join(dir, 'pool', 'pool.bin');
  const marker = join(dir, 'receive-command-ran');
  const receiveCommand = touchingFirst(marker, double.receiveCommand('stream-recv'));
  const config = await writeConfig(dir, { server: { listen: await freeListen(), receive_command: receiveCommand, pool_file: poolFile } });

  // Pool files made under the right passphrase by a first run, which is then stopped.
  const first = await startServe(t, config, { ...double.env, APP_POOL_KEY: passphrase });
  process.kill(first.process.child.pid ?? 0, 'SIGTERM');
  t.is(await first.process.exited, 0);
  t.true(existsSync(poolFile));
  await rm(marker, { force: true });

  const batch = freshValues(20);
  double.enqueue(valueLines(batch));
  const queued = double.queued();
  const wrong = startProcess(t, process.execPath, [qpoolBin, 'serve', '-c', config], { ...double.env, APP_POOL_KEY: 'not the passphrase' });
  const code = await wrong.exited;
  const output = `${wrong.stdout()}${wrong.stderr()}`;
  t.not(code, 0, output);
  t.regex(output, /could not be decrypted/);
  t.false(existsSync(marker), 'the receive command was never run');
  t.true(double.queued().equals(queued), 'the batch is still in the diode');

  // With the right passphrase the same batch arrives, whole.
  const serve = await startServe(t, config, { ...double.env, APP_POOL_KEY: passphrase });
  t.like(await waitForStatus(serve.url, (status) => status.available === 20), { available: 20, served_total: 0 });
  t.true(existsSync(marker));
  process.kill(serve.process.child.pid ?? 0, 'SIGTERM');
  t.is(await serve.process.exited, 0);
});

test('a receive command that replays the same data is paced by the idle backoff, with few log lines', async (t) => {
  const dir = await tempDir(t);
  const runsFile = join(dir, 'runs');
  const linesFile = join(dir, 'lines');
  // What a replayed file gives on every run: 20 values (new only the first time) and 5 damaged lines.
  await writeFile(linesFile, valueLines(freshValues(20)) + 'not json\n'.repeat(5));
  await writeFile(runsFile, '');
  // Each run records when it started (milliseconds since the epoch), then prints the file.
  const receiveCommand = ['/bin/sh', '-c', 'date +%s%3N >> "$0" && cat "$1"', runsFile, linesFile];
  const config = await writeConfig(dir, { server: { listen: await freeListen(), receive_command: receiveCommand } });
  const serve = await startServe(t, config);
  await waitForStatus(serve.url, (status) => status.available === 20);

  const runStarts = async () =>
    (await readFile(runsFile, 'utf8'))
      .split('\n')
      .filter((line) => line !== '')
      .map(Number);
  // Run 1 brought the values; run 2 brought nothing new, and the pauses start: 1 s, 2 s, 4 s, ...
  // Watched until the fifth run has started (about 7 s after the second).
  const deadline = Date.now() + 60_000;
  let starts = await runStarts();
  while (starts.length < 5) {
    if (Date.now() > deadline) return t.fail(`only ${starts.length} runs in 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    starts = await runStarts();
  }
  const watchedUntil = Date.now();
  starts = await runStarts();
  const receiverLines = serve.process
    .stderr()
    .split('\n')
    .filter((line) => line.includes('[recv/diode-receiver]'));
  process.kill(serve.process.child.pid ?? 0, 'SIGTERM');
  t.is(await serve.process.exited, 0);

  // Each gap is at least its pause (the run itself comes on top): a bound no machine speed can break.
  const gaps = starts.slice(1).map((start, index) => start - starts[index]!);
  t.log(`runs started at +${starts.map((start) => start - starts[0]!).join(' ms, +')} ms`);
  const pauses = [1000, 2000, 4000, 8000, 16_000];
  for (const [index, gap] of gaps.slice(1).entries()) t.true(gap >= pauses[index]!, `gap ${index + 2} was ${gap} ms, under its ${pauses[index]} ms pause`);
  // And over the whole measured interval, no more runs than that schedule allows: k pauses take 2^k - 1 s.
  const interval = watchedUntil - starts[1]!;
  t.true(starts.length - 2 <= Math.log2(interval / 1000 + 1), `${starts.length} runs in ${interval} ms since the second`);

  // Log lines: the first run's arrival, the first run without news, the first damaged line at once,
  // then at most one summary of damaged lines per 10 s; the later quiet runs log at debug only.
  t.log(receiverLines.join('\n'));
  t.true(receiverLines.length <= 3 + Math.ceil((watchedUntil - starts[0]!) / 10_000), `${receiverLines.length} log lines from the receiver`);
  t.true(receiverLines.some((line) => /skipped a damaged line: not JSON/.test(line)));
  t.true(receiverLines.some((line) => /receive command returned \d+ bytes and no new value \(20 already seen, 5 damaged lines\)/.test(line)));
});
