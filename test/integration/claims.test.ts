// The claims behind one owner per port and store (src/actor/claims.ts), held by real child processes.
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { askHolder, bindClaim } from '../../src/actor/claim-socket.js';
import { ClaimRefused, holdClaims } from '../../src/actor/claims.js';
import { reservePort } from '../../src/http/port.js';
import { projectPath, runToEnd, startProcess, type RunningProcess } from '../helpers/process.js';
import { tempDir } from '../helpers/qpool.js';

/** A process that holds what `code` claims (with `claims` and `socket` in scope) until it is killed. */
async function holder(t: ExecutionContext, code: string): Promise<RunningProcess> {
  const script = [
    `import * as claims from ${JSON.stringify(projectPath('dist/src/actor/claims.js'))};`,
    `import * as socket from ${JSON.stringify(projectPath('dist/src/actor/claim-socket.js'))};`,
    code,
    `process.stdout.write('held\\n');`,
    // Claims never keep a process running on their own.
    'setInterval(() => {}, 60_000);',
  ].join('\n');
  const running = startProcess(t, process.execPath, ['--input-type=module', '-e', script]);
  await running.waitFor(/^held$/m);
  return running;
}

test('a store reached through a symbolic link is the store its holder claimed', async (t) => {
  const dir = await tempDir(t, 'outpost-claims-');
  await mkdir(join(dir, 'real'));
  await symlink(join(dir, 'real'), join(dir, 'link'));
  const first = await holder(
    t,
    `await claims.holdClaims([{ role: 'recv', claims: { stores: [{ path: ${JSON.stringify(join(dir, 'real', 'pool.bin'))}, what: 'pool file' }] } }]);`,
  );
  const refusal = await t.throwsAsync(holdClaims([{ role: 'recv', claims: { stores: [{ path: join(dir, 'link', 'pool.bin'), what: 'pool file' }] } }]), {
    instanceOf: ClaimRefused,
  });
  t.regex(refusal?.message ?? '', new RegExp(`^cannot use the pool file ${dir}/link/pool\\.bin: it is in use by .*\\(pid ${first.child.pid!}\\)$`));
  // Another file in the same folder is another store.
  await t.notThrowsAsync(holdClaims([{ role: 'recv', claims: { stores: [{ path: join(dir, 'link', 'other.bin'), what: 'pool file' }] } }]));
});

test('a claim is refused while its holder lives and taken over once it died', async (t) => {
  const dir = await tempDir(t, 'outpost-claims-');
  const address = join(dir, 'claim.sock');
  const name = `test/${dir}`;
  const first = await holder(t, `if (!(await socket.bindClaim(${JSON.stringify(name)}, ${JSON.stringify(address)}))) throw new Error('not claimed');`);
  t.false(await bindClaim(name, address));
  t.is((await askHolder(name, address))?.pid, first.child.pid);
  first.child.kill('SIGKILL');
  await first.exited;
  // SIGKILL leaves the socket file behind; nothing answers on it any more.
  t.true(await bindClaim(name, address));
});

test('a file that is not a socket is never taken for a dead claim and removed', async (t) => {
  const dir = await tempDir(t, 'outpost-claims-');
  const address = join(dir, 'claim.sock');
  await writeFile(address, 'not a socket');
  t.false(await bindClaim(`test/${dir}/file`, address));
  t.is(await readFile(address, 'utf8'), 'not a socket');
});

test('two roles of one host config on one port are a configuration error (exit 2) naming both options', async (t) => {
  const dir = await tempDir(t, 'outpost-claims-');
  const file = join(dir, 'host.json');
  const port = await reservePort('127.0.0.1');
  await writeFile(file, JSON.stringify({ roles: { monitor: { host: '127.0.0.1', port }, speedtest: { host: '127.0.0.1', port, threads: 1 } } }));
  const result = await runToEnd(process.execPath, [projectPath('dist/bin/outpost.js'), 'run', '-c', file]);
  t.is(result.code, 2);
  t.is(result.stderr, `outpost: invalid configuration:\n  ${file}: roles.monitor.port and roles.speedtest.port both listen on 127.0.0.1:${port}\n`);
});

/** `outpost run` of a monitor on a fixed port, with TMPDIR (where the folder of claims is) set to `temp`. */
function monitorOnFixedPort(t: ExecutionContext, temp: string, file: string): RunningProcess {
  return startProcess(t, process.execPath, [projectPath('dist/bin/outpost.js'), 'run', '-c', file], { TMPDIR: temp });
}

async function fixedPortConfig(dir: string): Promise<string> {
  const file = join(dir, 'host.json');
  await writeFile(file, JSON.stringify({ roles: { monitor: { host: '127.0.0.1', port: await reservePort('127.0.0.1') } } }));
  return file;
}

test('outpost refuses to start when the folder of claims belongs to another user, naming the folder and the owner', async (t) => {
  const temp = await tempDir(t, 'outpost-claims-');
  const folder = join(temp, `outpost-${process.getuid!()}`);
  await mkdir(folder, { mode: 0o700 });
  // 65534 is `nobody`: another local user that made the folder first could bind every claim in it.
  await chown(folder, 65534, 65534);
  const outpost = monitorOnFixedPort(t, temp, await fixedPortConfig(temp));
  // A bound on a hang: the refusal comes before any actor starts.
  await outpost.waitFor(
    new RegExp(
      `${folder} belongs to uid 65534, not to this user \\(uid ${process.getuid!()}\\): another user may have made it to take outpost's sockets; remove it`,
    ),
    30_000,
  );
  t.is(await outpost.exited, 1);
  t.deepEqual(await readdir(folder), [], 'nothing is made in it');
});

test('outpost refuses to start when other users may write the folder of claims', async (t) => {
  const temp = await tempDir(t, 'outpost-claims-');
  const folder = join(temp, `outpost-${process.getuid!()}`);
  await mkdir(folder);
  await chmod(folder, 0o733);
  const outpost = monitorOnFixedPort(t, temp, await fixedPortConfig(temp));
  await outpost.waitFor(new RegExp(`${folder} may be written by other users \\(mode 733\\); run chmod 700 ${folder}`), 30_000);
  t.is(await outpost.exited, 1);
});

test('the folder of claims is made 0700, and a process that exits removes its claims and the folder', async (t) => {
  const temp = await tempDir(t, 'outpost-claims-');
  const folder = join(temp, `outpost-${process.getuid!()}`);
  const outpost = monitorOnFixedPort(t, temp, await fixedPortConfig(temp));
  await outpost.waitFor(/^monitor +http:\/\/127\.0\.0\.1:\d+\/$/m, 30_000);
  t.is((await stat(folder)).mode & 0o777, 0o700);
  t.true(
    (await readdir(folder)).some((name) => name.startsWith('claim-')),
    'the port is claimed by a socket file in it',
  );
  outpost.child.kill('SIGTERM');
  t.is(await outpost.exited, 0);
  t.false(existsSync(folder));
});
