// `outpost check` refuses what `outpost run` refuses, binding nothing, and both name the file and the
// full option path; `log.file` is checked like every option.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { hostFile } from '../helpers/outpost.js';
import { projectPath, runToEnd, startProcess } from '../helpers/process.js';

const outpost = (args: readonly string[], env: NodeJS.ProcessEnv = {}, input = '') =>
  runToEnd(process.execPath, [projectPath('dist/bin/outpost.js'), ...args], env, input);

async function tempDir(t: ExecutionContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'outpost-check-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test('check refuses, as run does, two roles on one port, a pool file without APP_POOL_KEY and a cert data_dir without config.json', async (t) => {
  const dir = await tempDir(t);
  const file = await hostFile(dir, 'host.json', {
    roles: {
      monitor: { host: '127.0.0.1', port: 1 },
      speedtest: { host: '127.0.0.1', port: 1 },
      recv: { server: { listen: '127.0.0.1:0', loopback: true, pool_file: join(dir, 'pool.bin') } },
      cert: { data_dir: join(dir, 'certhub') },
    },
  });
  for (const command of ['check', 'run']) {
    const result = await outpost([command, '-c', file], { APP_POOL_KEY: '' });
    t.is(result.code, 2, command);
    t.regex(result.stderr, /^outpost: invalid configuration:\n/, command);
    t.regex(result.stderr, /host\.json: roles\.monitor\.port and roles\.speedtest\.port both listen on 127\.0\.0\.1:1\n/, command);
    t.regex(result.stderr, /host\.json: roles\.recv\.server\.pool_file is set but APP_POOL_KEY is empty/, command);
    t.regex(result.stderr, /host\.json: roles\.cert: .*certhub\/config\.json does not exist: run certhub setup -d .*certhub first/, command);
    t.is(result.stdout, '', command);
  }
});

test('check takes several files, reads standard input for -c -, and refuses a repeated -c', async (t) => {
  const dir = await tempDir(t);
  const good = await hostFile(dir, 'good.json', { roles: { monitor: { port: 0 } } });
  const other = await hostFile(dir, 'other.json', { roles: { speedtest: { port: 0 } } });
  const both = await outpost(['check', '-c', good, other]);
  t.is(both.code, 0);
  t.is(both.stdout, `${good}: valid\n${other}: valid\n`);
  const bad = await hostFile(dir, 'bad.json', { roles: { monitor: { port: 70000 } } });
  const mixed = await outpost(['check', good, bad]);
  t.is(mixed.code, 2);
  t.regex(mixed.stderr, /bad\.json: roles\.monitor\.port must be at most 65535/);
  const piped = await outpost(['check', '-c', '-'], {}, JSON.stringify({ roles: { monitor: {} } }));
  t.is(piped.code, 0);
  t.is(piped.stdout, '<stdin>: valid\n');
  const repeated = await outpost(['check', '-c', good, '-c', other]);
  t.is(repeated.code, 2);
  t.regex(repeated.stderr, /^outpost: .*-c can be given once \(it was already .*good\.json\)/);
  const none = await outpost(['check']);
  t.is(none.code, 2);
  t.regex(none.stderr, /^outpost: check needs a config file/);
});

test('a JSON syntax error names the line and column', async (t) => {
  const result = await outpost(['check', '-c', '-'], {}, '{\n  "roles": {\n    "monitor": {}\n    "speedtest": {}\n  }\n}\n');
  t.is(result.code, 2);
  t.regex(result.stderr, /<stdin> is not valid JSON \(line 4, column 5\): /);
  const cut = await outpost(['check', '-c', '-'], {}, '{"roles": ');
  t.regex(cut.stderr, /<stdin> is not valid JSON \(line 1, column 11\): unexpected end of JSON input/);
});

test('log.file whose parent is a file, or where nothing can be created, is a config error naming log.file', async (t) => {
  const dir = await tempDir(t);
  await writeFile(join(dir, 'plain'), 'a file');
  for (const [path, reason] of [
    [join(dir, 'plain', 'outpost.log'), /plain is not a directory/],
    ['/proc/outpost.log', /cannot be written: /],
  ] as const) {
    const file = await hostFile(dir, 'host.json', { roles: { monitor: { host: '127.0.0.1', port: 0 } }, log: { file: path } });
    for (const command of ['check', 'run']) {
      const result = await outpost([command, '-c', file]);
      t.is(result.code, 2, `${command} ${path}`);
      t.regex(result.stderr, new RegExp(`host\\.json: log\\.file ${path.replaceAll('.', '\\.')} cannot be written`), `${command} ${path}`);
      t.regex(result.stderr, reason, `${command} ${path}`);
      t.notRegex(result.stderr, /\n\s+at /, 'no stack trace');
    }
  }
});

test('run makes a missing log folder 0700, and a log that stops being writable is reported once while the service goes on', async (t) => {
  const dir = await tempDir(t);
  const log = join(dir, 'logs', 'deep', 'outpost.jsonl');
  const file = await hostFile(dir, 'host.json', { roles: { monitor: { host: '127.0.0.1', port: 0 } }, log: { file: log } });
  const host = startProcess(t, process.execPath, [projectPath('dist/bin/outpost.js'), 'run', '-c', file]);
  await host.waitFor(/^monitor +http:/m);
  t.is((await stat(join(dir, 'logs'))).mode & 0o777, 0o700);
  t.is((await stat(join(dir, 'logs', 'deep'))).mode & 0o777, 0o700);
  t.is((await stat(log)).mode & 0o777, 0o600);
  host.child.kill('SIGTERM');
  t.is(await host.exited, 0);

  // /dev/full opens as any file and refuses every write with ENOSPC, as a full disk does.
  const full = await hostFile(dir, 'full.json', { roles: { monitor: { host: '127.0.0.1', port: 0 } }, log: { file: '/dev/full' } });
  const onFull = startProcess(t, process.execPath, [projectPath('dist/bin/outpost.js'), 'run', '-c', full]);
  const [, url] = await onFull.waitFor(/^monitor +(http:\S+)$/m);
  await onFull.waitFor(/cannot write the log file/);
  for (let index = 0; index < 3; index++) t.is((await fetch(`${url}api/snapshot`)).status, 200);
  onFull.child.kill('SIGTERM');
  t.is(await onFull.exited, 0);
  const reports = onFull.stderr().match(/^outpost: cannot write the log file \/dev\/full \(ENOSPC\); going on without it/gm) ?? [];
  t.is(reports.length, 1);
  t.regex(onFull.stderr(), /stopped/);
});

test('run prints each role and its URL in the config order and logs one line per listener', async (t) => {
  const dir = await tempDir(t);
  const file = await hostFile(dir, 'host.json', { roles: { speedtest: { host: '127.0.0.1', port: 0, threads: 1 }, monitor: { host: '127.0.0.1', port: 0 } } });
  const host = startProcess(t, process.execPath, [projectPath('dist/bin/outpost.js'), 'run', '-c', file]);
  await host.waitFor(/^monitor +http:\S+\n/m);
  const lines = host.stdout().trimEnd().split('\n');
  t.is(lines.length, 2);
  t.regex(lines[0]!, /^speedtest {2}http:\/\/127\.0\.0\.1:\d+\/$/);
  t.regex(lines[1]!, /^monitor {4}http:\/\/127\.0\.0\.1:\d+\/$/);
  await host.waitFor(/monitor listening on/);
  for (const line of lines) {
    const [role, url] = line.split(/ +/);
    t.is(
      host
        .stderr()
        .split('\n')
        .filter((entry) => entry.includes(`[supervisor] ${role} listening on ${url}`)).length,
      1,
    );
  }
  host.child.kill('SIGTERM');
  t.is(await host.exited, 0);
});
