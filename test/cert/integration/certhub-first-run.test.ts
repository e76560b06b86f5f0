// certhub's first run as docs/certhub.md shows it: `certhub run -d /tmp/try --demo` on a
// folder that does not exist yet makes its demo config and starts; without --demo, a folder with no
// config.json says to run `certhub setup` first. The panel's first answer says it is a demo.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { certhubBin } from '../../helpers/certhub.js';
import { projectPath, runToEnd, startProcess } from '../../helpers/process.js';
import { modeOf, tempDir } from '../../helpers/qpool.js';

test('certhub run --demo on a new folder writes a demo config (0600) and starts; the key in the config file it names logs in; the panel learns it is a demo', async (t) => {
  const dataDir = join(await tempDir(t, 'certhub-first-run-'), 'try');
  const server = startProcess(t, process.execPath, [certhubBin, 'run', '-d', dataDir, '--demo', '-H', '127.0.0.1', '-p', '0']);
  // A bound on a hang: on a loaded machine an actor may be restarted before it is ready.
  const [, url, configPath, prefix] = await server.waitFor(/^(http:\/\/127\.0\.0\.1:\d+\/)\nadmin key: in (\S+) \(starts (\S{6})…\)$/m, 60_000);
  t.is(configPath, join(dataDir, 'config.json'));
  const adminKey = (JSON.parse(await readFile(configPath!, 'utf8')) as { admin_key: string }).admin_key;
  t.true(adminKey.startsWith(prefix!));
  t.false(server.stdout().includes(adminKey), 'a stdout that is no terminal does not get the key');
  t.regex(
    server.stderr(),
    /config\.json did not exist: wrote a demo config \(base domain demo\.test, a new admin key\); certhub setup -d DIR writes a real one/,
  );
  t.is(await modeOf(join(dataDir, 'config.json')), 0o600);
  t.is(await modeOf(dataDir), 0o700);

  const before = await fetch(`${url}api/admin/session`);
  t.deepEqual(await before.json(), { active: false, demo: true });
  const login = await fetch(`${url}api/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url!.slice(0, -1) },
    body: JSON.stringify({ key: adminKey }),
  });
  t.is(login.status, 204, 'the key in the named file logs in');
  const added = await fetch(`${url}api/admin/domains`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'app', target: '127.0.0.1' }),
  });
  t.like(await added.json(), { name: 'app.demo.test' });
  server.child.kill('SIGTERM');
  t.is(await server.exited, 0, server.stderr());
});

test('certhub run without --demo on a folder without config.json exits 2 saying to run certhub setup first', async (t) => {
  const dataDir = await tempDir(t, 'certhub-first-run-');
  const result = await runToEnd(process.execPath, [projectPath('dist/bin/certhub.js'), 'run', '-d', dataDir, '-H', '127.0.0.1', '-p', '0']);
  t.is(result.code, 2);
  t.regex(result.stderr, /^certhub: /);
  t.regex(result.stderr, /config\.json does not exist: run certhub setup -d \S+ first/);
  t.notRegex(result.stderr, /ENOENT/);
});
