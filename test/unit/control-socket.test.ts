// The control socket when several outposts start and stop at once on one path (the default one of a
// user): no outpost fails on `chmod ENOENT` when another removes its fresh socket file, taking it
// for a dead process's.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import test from 'ava';
import type { SupervisorStatus } from '../../src/actor/actor-status.js';
import { askStatus, openControlSocket } from '../../src/actor/control-socket.js';

const statusOf = (pid: number) => (): SupervisorStatus => ({ pid, startedAt: new Date(0).toISOString(), roles: [] });

async function socketPath(t: { teardown(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'control-socket-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'run', 'control.sock');
}

test('a socket file nothing listens on (its process died) is replaced, and the socket is 0600', async (t) => {
  const path = await socketPath(t);
  // A process that binds the path and dies without removing the file, as a SIGKILL leaves it.
  execFileSync('python3', [
    '-c',
    `import os, socket\nos.makedirs(os.path.dirname(${JSON.stringify(path)}), exist_ok=True)\nsocket.socket(socket.AF_UNIX).bind(${JSON.stringify(path)})`,
  ]);
  t.true((await stat(path)).isSocket());
  const opened = await openControlSocket(path, statusOf(1));
  t.true(opened.listening);
  t.is((await stat(path)).mode & 0o777, 0o600);
  t.is((await askStatus(path)).pid, 1);
  if (opened.listening) opened.close();
});

test('a live one is left alone; ten starting at once leave exactly one listening, and none throws', async (t) => {
  const path = await socketPath(t);
  const outcomes = await Promise.all(Array.from({ length: 10 }, (_, index) => openControlSocket(path, statusOf(index + 1))));
  const listening = outcomes.filter((outcome) => outcome.listening);
  t.is(listening.length, 1, JSON.stringify(outcomes.filter((outcome) => !outcome.listening)));
  const answer = await askStatus(path);
  t.true(answer.pid >= 1 && answer.pid <= 10);
  for (const outcome of listening) outcome.close();
});

test('one outpost stopping while another starts on the path: the new one always listens and answers, and a stop removes its own file', async (t) => {
  const path = await socketPath(t);
  let previous = await openControlSocket(path, statusOf(0));
  for (let round = 1; round <= 40; round++) {
    if (!previous.listening) return t.fail(`round ${round}: ${previous.reason}`);
    const stopping = previous;
    const [next] = await Promise.all([openControlSocket(path, statusOf(round)), Promise.resolve().then(() => stopping.close())]);
    // Started before the stop ended, it may have found the stopping one still answering; then it starts again.
    previous = next.listening ? next : await openControlSocket(path, statusOf(round));
    t.true(previous.listening, `round ${round}`);
    t.is((await askStatus(path)).pid, round, `round ${round}: the new outpost answers`);
  }
  if (previous.listening) previous.close();
  await t.throwsAsync(stat(path), { code: 'ENOENT' }, 'the last one removed its file when it stopped');
});

test('a live outpost too busy to answer in time keeps its socket: the one starting leaves it alone', async (t) => {
  const path = await socketPath(t);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  // Accepts and never answers, as a supervisor whose loop is held up would (on a loaded machine).
  const busy = createServer(() => {});
  await new Promise<void>((resolve) => busy.listen(path, resolve));
  t.teardown(() => new Promise<void>((resolve) => busy.close(() => resolve())));
  const opened = await openControlSocket(path, statusOf(2));
  t.false(opened.listening);
  if (!opened.listening) t.regex(opened.reason, /another running outpost answers on/);
  t.true((await stat(path)).isSocket(), "the busy one's socket file is still there");
});

test("a folder another user owns is refused: no socket is made there, whoever's socket is at the path", async (t) => {
  const path = await socketPath(t);
  await mkdir(dirname(path), { mode: 0o700 });
  // 65534 is `nobody`: a folder another local user made first, where that user could put a socket.
  await chown(dirname(path), 65534, 65534);
  const opened = await openControlSocket(path, statusOf(3));
  t.deepEqual(opened, {
    listening: false,
    unsafe: true,
    reason: `refused the folder of ${path}: ${dirname(path)} belongs to uid 65534, not to this user (uid ${process.getuid!()}): another user may have made it to take outpost's sockets; remove it`,
  });
  t.false(existsSync(path));
});

test('a folder other users may write is refused', async (t) => {
  const path = await socketPath(t);
  await mkdir(dirname(path));
  await chmod(dirname(path), 0o777);
  const opened = await openControlSocket(path, statusOf(4));
  t.deepEqual(opened, {
    listening: false,
    unsafe: true,
    reason: `refused the folder of ${path}: ${dirname(path)} may be written by other users (mode 777); run chmod 700 ${dirname(path)}`,
  });
  t.false(existsSync(path));
});
