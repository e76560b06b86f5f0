// certhub holds every domain's token and private key; roles in one process share its memory and its
// user. `outpost run` says so when a host config puts the cert role beside another role.
import { join } from 'node:path';
import test from 'ava';
import { certhubDataDir } from '../../helpers/certhub.js';
import { outpostDir, startOutpost } from '../../helpers/outpost.js';

test('outpost run warns, naming the roles, when the cert role shares the process with another role', async (t) => {
  const dir = await outpostDir(t);
  const config = {
    roles: { cert: { demo: true, data_dir: await certhubDataDir(t), bind: '127.0.0.1', port: 0 }, monitor: { host: '127.0.0.1', port: 0 } },
    supervisor: { control_socket: join(dir, 'control.sock') },
  };
  const outpost = await startOutpost(t, dir, config, 2);
  // Log lines share one stream, in order: the warning comes before the start.
  await outpost.process.waitFor(/\[supervisor\] all actors ready/);
  t.regex(
    outpost.process.stderr(),
    /warn +\[supervisor\] roles\.cert runs beside monitor in one process, which shares its memory and its user: certhub holds every domain's token and private key; run it in a process of its own \(certhub run, certhub\.service\)/,
  );
});

test('outpost run of the cert role alone does not warn', async (t) => {
  const dir = await outpostDir(t);
  const config = {
    roles: { cert: { demo: true, data_dir: await certhubDataDir(t), bind: '127.0.0.1', port: 0 } },
    supervisor: { control_socket: join(dir, 'control.sock') },
  };
  const outpost = await startOutpost(t, dir, config, 1);
  await outpost.process.waitFor(/\[supervisor\] all actors ready/);
  t.notRegex(outpost.process.stderr(), /runs beside/);
});
