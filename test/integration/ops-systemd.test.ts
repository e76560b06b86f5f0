// The shipped systemd units pass `systemd-analyze verify` with no warning. verify checks that
// ExecStart's program exists, and the units name the installed binary (/usr/local/bin/<name>), so
// each real unit file is verified as a copy whose ExecStart program alone is the binary built here;
// every other line is the shipped one. Under journald the log lines carry no time of their own.
import { closeSync, fstatSync, openSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import test from 'ava';
import { outpostBin, outpostDir } from '../helpers/outpost.js';
import { projectPath, runToEnd, startProcess } from '../helpers/process.js';

const unitsDir = projectPath('packaging/systemd');

test('every shipped unit passes systemd-analyze verify without a warning and is hardened', async (t) => {
  const dir = await outpostDir(t);
  const units = (await readdir(unitsDir)).filter((name) => name.endsWith('.service'));
  t.deepEqual(units.sort(), ['certhub-agent-fetch.service', 'certhub-agent-proxy.service', 'certhub.service', 'outpost.service', 'qpool-serve.service']);
  for (const unit of units) {
    const text = await readFile(join(unitsDir, unit), 'utf8');
    const execStart = /^ExecStart=\/usr\/local\/bin\/([a-z-]+) /m.exec(text);
    t.truthy(execStart, `${unit} starts an installed outpost binary`);
    const built = projectPath(`dist/bin/${execStart![1]!}.js`);
    const copy = join(dir, unit);
    await writeFile(copy, text.replace(`ExecStart=/usr/local/bin/${execStart![1]!} `, `ExecStart=${built} `));
    const verified = await runToEnd('systemd-analyze', ['verify', copy]);
    t.is(verified.code, 0, `${unit}: ${verified.stderr}`);
    t.is(verified.stderr.trim(), '', `${unit} has no warning`);
    // The fetch binds no port: it keeps no capability at all.
    const capabilities = unit === 'certhub-agent-fetch.service' ? 'CapabilityBoundingSet=' : 'CapabilityBoundingSet=CAP_NET_BIND_SERVICE';
    for (const line of ['DynamicUser=yes', 'ProtectSystem=strict', 'NoNewPrivileges=yes', capabilities, 'ExecReload=/bin/kill -HUP $MAINPID']) {
      t.true(text.split('\n').includes(line), `${unit} has ${line}`);
    }
    t.regex(text, /^StateDirectory=\S+$/m);
  }
});

test('certhub runs in a process of its own: certhub.service starts the cert role alone, and outpost.service says to leave it out of host.json', async (t) => {
  const certhub = await readFile(join(unitsDir, 'certhub.service'), 'utf8');
  t.regex(certhub, /^ExecStart=\/usr\/local\/bin\/certhub run /m);
  const outpost = await readFile(join(unitsDir, 'outpost.service'), 'utf8');
  t.regex(outpost, /^# Leave the cert role out of host\.json: roles in one process share its memory and its user/m);
});

test('every shipped unit caps glibc malloc arenas (their memory grew with the worker threads in the soak)', async (t) => {
  const units = (await readdir(unitsDir)).filter((name) => name.endsWith('.service'));
  for (const unit of units) t.true((await readFile(join(unitsDir, unit), 'utf8')).split('\n').includes('Environment=MALLOC_ARENA_MAX=2'), unit);
});

test('verify fails on a unit whose program is missing (the check above has teeth)', async (t) => {
  const dir = await outpostDir(t);
  const copy = join(dir, 'outpost.service');
  await writeFile(
    copy,
    (await readFile(join(unitsDir, 'outpost.service'), 'utf8')).replace('ExecStart=/usr/local/bin/outpost ', `ExecStart=${join(dir, 'missing')} `),
  );
  const verified = await runToEnd('systemd-analyze', ['verify', copy]);
  t.not(verified.code, 0);
  t.regex(verified.stderr, /is not executable/);
});

/** The first line `outpost run` logs, its stderr a file that JOURNAL_STREAM names (as systemd does) or not. */
async function firstLogLine(dir: string, journal: boolean): Promise<string> {
  const config = join(dir, 'host.json');
  // A control socket of its own: another outpost running on this machine would otherwise own the default one, and say so first.
  await writeFile(config, JSON.stringify({ roles: { monitor: { host: '127.0.0.1', port: 0 } }, supervisor: { control_socket: join(dir, 'control.sock') } }));
  const logPath = join(dir, 'stderr.log');
  const fd = openSync(logPath, 'w');
  const { dev, ino } = fstatSync(fd);
  const child = spawn(process.execPath, [outpostBin, 'run', '-c', config], {
    stdio: ['ignore', 'pipe', fd],
    env: { ...process.env, ...(journal ? { JOURNAL_STREAM: `${dev}:${ino}` } : { JOURNAL_STREAM: '' }) },
  });
  closeSync(fd);
  // The URL is printed after the first log line is written.
  await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
  child.kill('SIGTERM');
  await new Promise((resolve) => child.on('exit', resolve));
  return (await readFile(logPath, 'utf8')).split('\n')[0] ?? '';
}

test('log lines carry no timestamp when stderr is the journal, and one otherwise', async (t) => {
  const dir = await outpostDir(t);
  t.regex(await firstLogLine(dir, true), /^info +\[supervisor\] all actors ready/);
  t.regex(await firstLogLine(dir, false), /^\d{4}-\d\d-\d\dT[\d:.]+Z info +\[supervisor\] all actors ready/);
});

/** A unit's `LoadCredential=ID:PATH` lines, by ID. */
function credentialsOf(text: string): Map<string, string> {
  return new Map([...text.matchAll(/^LoadCredential=([\w.-]+):(\S+)$/gm)].map(([, id, path]) => [id!, path!]));
}

test('the files that hold tokens or the pool key reach the services as credentials (%d), never through the environment', async (t) => {
  const unit = async (name: string) => readFile(join(unitsDir, name), 'utf8');
  const proxy = await unit('certhub-agent-proxy.service');
  t.deepEqual(credentialsOf(proxy), new Map([['proxy.json', '/etc/outpost/proxy.json']]));
  t.regex(proxy, /^ExecStart=\/usr\/local\/bin\/certhub-agent proxy -c %d\/proxy\.json$/m);
  const outpost = await unit('outpost.service');
  t.deepEqual(credentialsOf(outpost), new Map([['host.json', '/etc/outpost/host.json']]));
  t.regex(outpost, /^ExecStart=\/usr\/local\/bin\/outpost run -c %d\/host\.json$/m);
  const qpool = await unit('qpool-serve.service');
  t.deepEqual(credentialsOf(qpool), new Map([['pool-key', '/etc/outpost/qpool-pool-key']]));
  t.true(qpool.split('\n').includes('Environment=APP_POOL_KEY_FILE=%d/pool-key'));
  for (const text of [proxy, outpost, qpool]) t.notRegex(text, /^EnvironmentFile=/m);
});

test("the proxy unit's ExecStart runs on its config as systemd hands the credential over (a 0400 copy in a 0700 folder)", async (t) => {
  const dir = await outpostDir(t);
  const credentials = join(dir, 'credentials');
  await mkdir(credentials, { mode: 0o700 });
  const config = {
    server: 'https://certhub.example.test/',
    fetch: false,
    routes: { 'app.example.test': { backend: '127.0.0.1:9', token: 'chd_route_token' } },
    host: '127.0.0.1',
    port: 0,
    material_dir: join(dir, 'material'),
  };
  await writeFile(join(credentials, 'proxy.json'), JSON.stringify(config), { mode: 0o400 });
  const text = await readFile(join(unitsDir, 'certhub-agent-proxy.service'), 'utf8');
  const [program, ...args] = /^ExecStart=(.+)$/m.exec(text)![1]!.replaceAll('%d', credentials).split(' ');
  const proxy = startProcess(t, process.execPath, [projectPath(`dist/bin/${program!.replace('/usr/local/bin/', '')}.js`), ...args]);
  await proxy.waitFor(/^https:\/\/127\.0\.0\.1:\d+\/$/m, 30_000);
  t.pass('the proxy listens');
});
