// qpool serve with its pool files on a volume that stops taking writes: a small tmpfs filled to the
// last byte, or remounted read-only. The spec's promise: a value request then fails with 503 and
// consumes nothing, the log says `pool could not be committed to disk`, and once the volume takes
// writes again serving resumes, still never answering a value twice. Needs root (mount); the suite
// runs as root, so a failed mount fails the test rather than skipping it.
import { randomBytes } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { DiodeDouble } from '../../helpers/diode-double.js';
import { runToEnd } from '../../helpers/process.js';
import { fillVolume, smallVolume } from '../../helpers/small-volume.js';
import { freeListen, poolStatus, startServe, tempDir, valueLines, waitForStatus, writeConfig, type RunningServe } from '../../helpers/qpool.js';

const passphrase = 'disk test passphrase';
const diskFailure = 'pool could not be committed to disk';
const textFormats = ['hex', 'base64', 'binary'] as const;

async function run(command: string, args: string[]): Promise<{ code: number | null; output: string }> {
  const result = await runToEnd(command, args);
  return { code: result.code, output: `${result.stdout}${result.stderr}`.trim() };
}

async function remount(mountPoint: string, mode: 'ro' | 'rw'): Promise<void> {
  const result = await run('mount', ['-o', `remount,${mode}`, mountPoint]);
  if (result.code !== 0) throw new Error(`mount -o remount,${mode} ${mountPoint} failed: ${result.output}`);
}

interface Answer {
  status: number;
  type: string;
  body: Buffer;
}

async function request(url: string, format: 'json' | (typeof textFormats)[number]): Promise<Answer> {
  const response = await fetch(`${url}${format === 'json' ? 'api/random' : `api/random/${format}`}`);
  return { status: response.status, type: response.headers.get('content-type') ?? '', body: Buffer.from(await response.arrayBuffer()) };
}

function valueOf(answer: Answer, format: 'json' | (typeof textFormats)[number] = 'json'): string {
  const text = answer.body.toString('utf8');
  switch (format) {
    case 'json':
      return (JSON.parse(text) as { value: string }).value;
    case 'hex':
      return text.trim();
    case 'base64':
      return Buffer.from(text.trim(), 'base64').toString('hex');
    case 'binary':
      return answer.body.toString('hex');
  }
}

interface Served {
  url: string;
  serve: RunningServe;
  config: string;
  env: NodeJS.ProcessEnv;
  fed: Set<string>;
  answered: string[];
}

async function servedPool(t: ExecutionContext, mountPoint: string, count: number): Promise<Served> {
  const double = await DiodeDouble.create(t);
  t.teardown(() => double.cleanup());
  const dir = await tempDir(t, 'qpool-disk-config-');
  // stream-recv ends by itself each run: nothing is left behind when the server is killed.
  const config = await writeConfig(dir, {
    server: { listen: await freeListen(), receive_command: double.receiveCommand('stream-recv'), pool_file: join(mountPoint, 'pool.bin') },
  });
  const env = { ...double.env, APP_POOL_KEY: passphrase };
  const serve = await startServe(t, config, env);
  const values = Array.from({ length: count }, () => randomBytes(128).toString('hex'));
  double.enqueue(valueLines(values));
  await waitForStatus(serve.url, (status) => status.available === count);
  const served: Served = { url: serve.url, serve, config, env, fed: new Set(values), answered: [] };
  // Serving works while the volume has room.
  for (let index = 0; index < 5; index++) {
    const answer = await request(serve.url, 'json');
    t.is(answer.status, 200);
    served.answered.push(valueOf(answer));
  }
  return served;
}

/**
 * Takes values until one request fails: the journal's last page may still have room for a few
 * records after the volume is full. The failing request must consume nothing.
 */
async function takeUntilRefused(t: ExecutionContext, served: Served): Promise<void> {
  for (let index = 0; index < 400; index++) {
    const before = await poolStatus(served.url);
    const answer = await request(served.url, 'json');
    if (answer.status === 200) {
      served.answered.push(valueOf(answer));
      continue;
    }
    t.log(`refused after ${index} more values were committed on the full volume`);
    t.is(answer.status, 503);
    t.regex(answer.type, /^application\/json/);
    t.deepEqual(JSON.parse(answer.body.toString('utf8')), { error: diskFailure });
    const after = await poolStatus(served.url);
    t.is(after.available, before.available, 'the refused request consumed nothing');
    t.is(after.served_total, before.served_total);
    return;
  }
  t.fail('no request was refused on a full volume');
}

/** While the volume refuses writes: every format answers 503, nothing is consumed. */
async function refusedEverywhere(t: ExecutionContext, served: Served): Promise<void> {
  const before = await poolStatus(served.url);
  const json = await request(served.url, 'json');
  t.is(json.status, 503);
  t.regex(json.type, /^application\/json/);
  t.is(json.body.toString('utf8'), `{"error":"${diskFailure}"}`);
  for (const format of textFormats) {
    const answer = await request(served.url, format);
    t.is(answer.status, 503, format);
    t.regex(answer.type, /^text\/plain/, format);
    t.is(answer.body.toString('utf8'), `${diskFailure}\n`, format);
  }
  const after = await poolStatus(served.url);
  t.is(after.available, before.available);
  t.is(after.served_total, before.served_total);
}

/** Once the volume takes writes again: values come back within the retry pause (about a second). */
async function servingResumes(t: ExecutionContext, served: Served): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const answer = await request(served.url, 'json');
    if (answer.status === 200) {
      served.answered.push(valueOf(answer));
      break;
    }
    t.deepEqual(JSON.parse(answer.body.toString('utf8')), { error: diskFailure });
    if (Date.now() > deadline) return t.fail('serving did not resume within 5 s of the volume taking writes again');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await served.serve.process.waitFor(/the pool files are written again; serving resumes/, 2000);
  for (const format of textFormats) {
    const answer = await request(served.url, format);
    t.is(answer.status, 200, format);
    served.answered.push(valueOf(answer, format));
  }
}

/** Stops the server (SIGTERM) and starts it again on the same files: the pool is as it was. */
async function restart(t: ExecutionContext, served: Served): Promise<void> {
  const before = await poolStatus(served.url);
  process.kill(served.serve.process.child.pid ?? 0, 'SIGTERM');
  t.is(await served.serve.process.exited, 0);
  served.serve = await startServe(t, served.config, served.env);
  served.url = served.serve.url;
  t.deepEqual(await poolStatus(served.url), before);
}

/** Takes every value left: none was answered before, and every value fed was served once. */
async function drainAndCheck(t: ExecutionContext, served: Served): Promise<void> {
  const status = await poolStatus(served.url);
  const rest = status.available;
  for (let index = 0; index < rest; index++) {
    const answer = await request(served.url, 'json');
    t.is(answer.status, 200);
    served.answered.push(valueOf(answer));
  }
  const end = await poolStatus(served.url);
  t.is(end.available, 0);
  t.is(end.served_total, served.fed.size, 'every value fed was served exactly once (none lost without a crash)');
  t.is(new Set(served.answered).size, served.answered.length, 'no value was answered twice');
  t.true(served.answered.every((value) => served.fed.has(value)));
  t.is(served.answered.length, served.fed.size);
}

test('a full volume: 503 with nothing consumed, logged, and serving resumes once there is room', async (t) => {
  const mountPoint = await smallVolume(t, await tempDir(t, 'qpool-disk-'));
  const served = await servedPool(t, mountPoint, 300);
  const filler = fillVolume(mountPoint);
  await takeUntilRefused(t, served);
  await refusedEverywhere(t, served);
  await served.serve.process.waitFor(new RegExp(`${diskFailure}.*ENOSPC`), 2000);
  await unlink(filler);
  await servingResumes(t, served);
  // What was written after the failure is a pool a restart reads back.
  await restart(t, served);
  await drainAndCheck(t, served);
  process.kill(served.serve.process.child.pid ?? 0, 'SIGTERM');
  t.is(await served.serve.process.exited, 0);
});

// A volume with a file open for writing cannot be remounted read-only (EBUSY), and the server
// keeps its journal open while it works. It closes it when a failed write makes it rewrite both
// files, so the volume is filled first, the rewrite fails, and the volume is then freed and
// remounted read-only before the next attempt.
test('a read-only volume: 503 with nothing consumed, logged, and serving resumes once it is writable', async (t) => {
  const mountPoint = await smallVolume(t, await tempDir(t, 'qpool-disk-'));
  const served = await servedPool(t, mountPoint, 300);
  const filler = fillVolume(mountPoint);
  await takeUntilRefused(t, served);
  // The next request tries the rewrite (closing the journal), which fails on the full volume.
  await refusedEverywhere(t, served);
  await unlink(filler);
  await remount(mountPoint, 'ro');
  t.teardown(() => run('mount', ['-o', 'remount,rw', mountPoint]));
  // Past the retry pause, so that the requests below meet the read-only volume, not the pause.
  await new Promise((resolve) => setTimeout(resolve, 1200));
  await refusedEverywhere(t, served);
  // Failures are logged at most every 5 s; keep asking until the read-only one is.
  const deadline = Date.now() + 8000;
  while (!new RegExp(`${diskFailure}.*EROFS`).test(served.serve.process.stderr())) {
    if (Date.now() > deadline) return t.fail(`no ${diskFailure} line naming EROFS was logged:\n${served.serve.process.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await refusedEverywhere(t, served);
  }
  await remount(mountPoint, 'rw');
  await servingResumes(t, served);
  await drainAndCheck(t, served);
  process.kill(served.serve.process.child.pid ?? 0, 'SIGTERM');
  t.is(await served.serve.process.exited, 0);
});
