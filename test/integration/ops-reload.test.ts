// SIGHUP makes `outpost run -c FILE` read its host config again: the log level changes at once,
// other changes are named as needing a restart, and a config that fails its check is refused while
// the running one goes on serving.
import { writeFile } from 'node:fs/promises';
import test from 'ava';
import { outpostDir, startOutpost } from '../helpers/outpost.js';

const monitorHost = (port: number, level: string) => ({ roles: { monitor: { host: '127.0.0.1', port } }, log: { level } });

test('SIGHUP applies the new log level, names what needs a restart, and refuses a config that fails its check', async (t) => {
  const dir = await outpostDir(t);
  const outpost = await startOutpost(t, dir, monitorHost(0, 'info'));
  const pid = outpost.process.child.pid!;
  const url = outpost.urls[0]!;

  await writeFile(outpost.configPath, JSON.stringify(monitorHost(1, 'debug')));
  process.kill(pid, 'SIGHUP');
  await outpost.process.waitFor(/log\.level is now debug/);
  await outpost.process.waitFor(/roles\.monitor\.port changed and needs a restart to take effect/);
  t.is((await fetch(`${url}api/snapshot`)).status, 200);

  await writeFile(outpost.configPath, JSON.stringify({ roles: { monitor: { host: '127.0.0.1', port: 'eighty' } } }));
  process.kill(pid, 'SIGHUP');
  const [refused] = await outpost.process.waitFor(/reload refused, the running config stays: .*/);
  t.regex(refused, /roles\.monitor\.port/);
  t.is((await fetch(`${url}healthz`)).status, 200);

  await writeFile(outpost.configPath, 'not json');
  process.kill(pid, 'SIGHUP');
  await outpost.process.waitFor(/reload refused, the running config stays: .*is not valid JSON/);
  t.is((await fetch(`${url}api/snapshot`)).status, 200);
  t.false(outpost.process.stderr().includes('uncaught'));
});
