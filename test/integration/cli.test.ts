import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { versionLine } from '../../src/version.js';
import { projectPath, runToEnd, startProcess } from '../helpers/process.js';

const executables = ['outpost', 'certhub', 'certhub-agent', 'netspeed', 'hostwatch', 'qpool'] as const;
const run = (name: string, ...args: string[]) => runToEnd(process.execPath, [projectPath(`dist/bin/${name}.js`), ...args]);

for (const name of executables) {
  test(`${name} --version, --license and --help`, async (t) => {
    const shown = await run(name, '--version');
    t.is(shown.code, 0);
    t.is(shown.stdout, `${versionLine(name)}\n`);
    const license = await run(name, '--license');
    t.is(license.code, 0);
    t.regex(license.stdout, /^MIT License/);
    t.regex(license.stdout, /uWebSockets\.js \(https:\/\/github\.com\/uNetworking\/uWebSockets\.js\)/);
    t.regex(license.stdout, /Apache License\s+Version 2\.0/);
    t.regex(license.stdout, /winston@/);
    const help = await run(name, '--help');
    t.is(help.code, 0);
    t.regex(help.stdout, new RegExp(`^Usage: ${name} `));
    t.regex(help.stdout, /--license/);
    const manual = projectPath(`docs/${name}.md`);
    t.true(help.stdout.endsWith(`\nManual: ${manual}\n`), help.stdout);
    const command = await run(name, ...(commandOf[name] ?? []), '--help');
    t.true(command.stdout.endsWith(`\nManual: ${manual}\n`), command.stdout);
    t.true(await exists(manual), `${manual} exists`);
  });
}

/** A command of each executable, whose --help ends with the manual too. */
const commandOf: Record<string, string[]> = { outpost: ['run'], certhub: ['setup'], 'certhub-agent': ['fetch'], netspeed: ['server'], qpool: ['serve'] };

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

test('an unknown command or option exits 2 with a hint', async (t) => {
  const command = await run('outpost', 'rn');
  t.is(command.code, 2);
  t.regex(command.stderr, /unknown command 'rn'/);
  t.regex(command.stderr, /Did you mean run\?/);
  const option = await run('qpool', 'collect', '-c', 'qpool.json', '--frobnicate');
  t.is(option.code, 2);
  t.regex(option.stderr, /unknown option '--frobnicate'/);
});

test('COMMAND --help describes the command', async (t) => {
  const help = await run('outpost', 'run', '--help');
  t.is(help.code, 0);
  t.regex(help.stdout, /Usage: outpost run \[options\]/);
  t.regex(help.stdout, /-c, --config <file>/);
  t.regex(help.stdout, /--log-json/);
});

test('a bad host config names every bad path and exits 2', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'outpost-cli-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'host.json');
  await writeFile(file, JSON.stringify({ roles: { cert: {}, mointor: {} }, supervisor: { shutdown_grace_ms: -5 } }));
  const result = await run('outpost', 'run', '-c', file);
  t.is(result.code, 2);
  t.regex(result.stderr, /roles\.mointor is not a known option \(did you mean monitor\?\)/);
  t.regex(result.stderr, /supervisor\.shutdown_grace_ms must be at least 1/);
  t.regex(result.stderr, /roles\.cert\.data_dir is required/);
  await writeFile(file, '{"roles": ');
  const broken = await run('outpost', 'check', '-c', file);
  t.is(broken.code, 2);
  t.regex(broken.stderr, /host\.json is not valid JSON/);
  const missing = await run('outpost', 'run', '-c', join(dir, 'nope.json'));
  t.is(missing.code, 2);
  t.regex(missing.stderr, /cannot read config file .*nope\.json: ENOENT/);
});

test('outpost demo runs every implemented role on loopback, prints each URL and stops on SIGINT', async (t) => {
  const demo = startProcess(t, process.execPath, [projectPath('dist/bin/outpost.js'), 'demo']);
  // A bound on a hang: every role starts, and the demo proxy's route is served before the URLs print.
  await demo.waitFor(/press Ctrl-C to stop/, 90_000);
  const urls: Record<string, string> = {};
  for (const match of demo.stdout().matchAll(/^(\w+) +(http:\/\/127\.0\.0\.1:\d+\/)$/gm)) urls[match[1]!] = match[2]!;
  t.deepEqual(Object.keys(urls).sort(), ['cert', 'monitor', 'recv', 'speedtest']);
  t.like(await (await fetch(`${urls.cert}api/version`)).json(), { product: 'certhub' });
  t.is((await fetch(`${urls.monitor}api/snapshot`)).status, 200);
  // The demo source crosses the loopback diode at start; its values say they are not quantum.
  const value = await fetch(`${urls.recv}api/random`);
  t.is(value.status, 200);
  t.is(value.headers.get('x-quantum-source'), 'demo');
  t.is((await fetch(`${urls.recv}api/status`)).headers.get('x-quantum-demo'), '1');
  t.like(await (await fetch(`${urls.speedtest}api/info`)).json(), { server: 'netspeed' });
  demo.child.kill('SIGINT');
  t.is(await demo.exited, 0);
});

test('outpost run starts the roles a host config names', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'outpost-host-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'host.json');
  await writeFile(file, JSON.stringify({ roles: { speedtest: { host: '127.0.0.1', port: 0, threads: 1, name: 'From host.json' } } }));
  const host = startProcess(t, process.execPath, [projectPath('dist/bin/outpost.js'), 'run', '-c', file, '--log-json']);
  const [, url] = await host.waitFor(/^speedtest +(http:\/\/127\.0\.0\.1:\d+\/)$/m);
  t.like(await (await fetch(`${url}api/info`)).json(), { name: 'From host.json' });
  const ready = host
    .stderr()
    .split('\n')
    .find((line) => line.includes('all actors ready'));
  t.like(JSON.parse(ready!) as object, { level: 'info', actor: 'supervisor' });
  host.child.kill('SIGTERM');
  t.is(await host.exited, 0);
});

test('a bad option value of a role binary names the option and exits 2', async (t) => {
  const server = await run('netspeed', 'server', '-p', '99999', '-d', '0');
  t.is(server.code, 2);
  t.regex(server.stderr, /-p, --port must be at most 65535/);
  t.regex(server.stderr, /-d, --duration must be at least 1/);
  const dashboard = await run('hostwatch', '--port', 'eighty');
  t.is(dashboard.code, 2);
  t.regex(dashboard.stderr, /-p, --port must be a number/);
});
