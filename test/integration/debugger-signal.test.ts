// SIGUSR1 opens Node's inspector unless the program listens for it: a running
// `outpost run`, `certhub run` and `certhub-agent fetch --watch` are signalled, and none opens a
// debugger port or says "Debugger listening". How long to wait is measured first on a bare Node
// process, which does open its inspector (on a free port: --inspect-port=0).
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import test, { type ExecutionContext } from 'ava';
import { certhubDataDir, startCerthub } from '../helpers/certhub.js';
import { addIssuedDomain, startAgent } from '../helpers/certhub-agent.js';
import { projectPath, startProcess, type RunningProcess } from '../helpers/process.js';
import { tempDir } from '../helpers/qpool.js';

/** What Node prints when it opens its inspector, or tries to (the port may be taken). */
const debuggerLine = /Debugger listening on ws:\/\/|Starting inspector on/;

/** How long a bare Node process takes from SIGUSR1 to "Debugger listening": the wait that proves its absence. */
async function inspectorOpeningMs(t: ExecutionContext): Promise<number> {
  const bare = startProcess(t, process.execPath, ['--inspect-port=0', '-e', "process.stdout.write('up\\n'); setInterval(() => {}, 1000)"]);
  await bare.waitFor(/^up$/m);
  const signalledAt = performance.now();
  bare.child.kill('SIGUSR1');
  await bare.waitFor(debuggerLine, 30_000);
  return performance.now() - signalledAt;
}

/** The ports `pid` listens on, as `ss` lists them. */
function listeningPorts(pid: number): number[] {
  const listed = spawnSync('ss', ['-Hltnp'], { encoding: 'utf8' });
  return listed.stdout
    .split('\n')
    .filter((line) => line.includes(`pid=${pid},`))
    .map((line) => Number(/:(\d+)\s/.exec(line)?.[1]));
}

async function signalAndCheck(t: ExecutionContext, name: string, running: RunningProcess, waitMs: number): Promise<void> {
  const pid = running.child.pid ?? 0;
  const before = listeningPorts(pid);
  running.child.kill('SIGUSR1');
  await sleep(waitMs);
  t.is(running.child.exitCode, null, `${name} still runs after SIGUSR1`);
  t.notRegex(running.stderr(), debuggerLine, `${name} opened no debugger`);
  t.false(listeningPorts(pid).includes(9229), `${name} does not listen on 9229`);
  t.deepEqual(listeningPorts(pid), before, `${name} listens on no new port`);
}

test('SIGUSR1 to outpost run, certhub run and certhub-agent fetch --watch opens no inspector', async (t) => {
  // Ten times what the bare process took, and at least 2 s: the inspector opens in well under that.
  const waitMs = Math.max(2000, 10 * (await inspectorOpeningMs(t)));

  const dir = await tempDir(t, 'debugger-signal-');
  const hostFile = join(dir, 'host.json');
  await writeFile(hostFile, JSON.stringify({ roles: { monitor: { host: '127.0.0.1', port: 0 } } }));
  const outpost = startProcess(t, process.execPath, [projectPath('dist/bin/outpost.js'), 'run', '-c', hostFile]);
  await outpost.waitFor(/^monitor\s+http:\/\/127\.0\.0\.1:\d+\/$/m, 60_000);

  const certhub = await startCerthub(t, await certhubDataDir(t));
  const { name, token } = await addIssuedDomain(certhub, 'app');
  const agent = startAgent(t, ['fetch', '--allow-untrusted', '-s', certhub.url, '-t', token, '-d', name, '-o', join(dir, 'certs'), '--watch']);
  await agent.waitFor(/app\.example\.test: written/, 30_000);

  await Promise.all([
    signalAndCheck(t, 'outpost run', outpost, waitMs),
    signalAndCheck(t, 'certhub run', certhub, waitMs),
    signalAndCheck(t, 'certhub-agent fetch --watch', agent, waitMs),
  ]);
});
