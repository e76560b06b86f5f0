// `outpost status` asks a running `outpost run` over its control socket (mode 0600, no port):
// roles, actors with state, restarts and uptime, and the fronts' URLs, as text and as JSON.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import type { SupervisorStatus } from '../../src/actor/actor-status.js';
import { outpostBin, outpostDir, startOutpost } from '../helpers/outpost.js';
import { runToEnd } from '../helpers/process.js';

test("outpost status prints each role's actors, restarts, uptime and URLs through a 0600 socket", async (t) => {
  const dir = await outpostDir(t);
  const socket = join(dir, 'control.sock');
  const outpost = await startOutpost(
    t,
    dir,
    {
      roles: { recv: { server: { listen: '127.0.0.1:0', loopback: true, accept_demo: true } }, monitor: { host: '127.0.0.1', port: 0 } },
      supervisor: { control_socket: socket },
    },
    2,
  );
  t.is((await stat(socket)).mode & 0o777, 0o600);

  const json = await runToEnd(process.execPath, [outpostBin, 'status', '-c', outpost.configPath, '--json']);
  t.is(json.code, 0, json.stderr);
  const status = JSON.parse(json.stdout) as SupervisorStatus;
  t.is(status.pid, outpost.process.child.pid ?? -1);
  t.deepEqual(status.roles.map((role) => role.name).sort(), ['monitor', 'recv']);
  const recv = status.roles.find((role) => role.name === 'recv')!;
  t.true(recv.ready);
  t.deepEqual(recv.actors.map((actor) => actor.name).sort(), ['recv/diode-receiver', 'recv/http-front', 'recv/pool']);
  for (const actor of recv.actors) {
    t.is(actor.state, 'running');
    t.is(actor.restarts, 0);
    t.true((actor.uptimeSeconds ?? -1) >= 0);
  }
  const urls = status.roles.flatMap((role) => role.actors.flatMap((actor) => actor.urls ?? []));
  t.deepEqual(urls.sort(), [...outpost.urls].sort());

  const text = await runToEnd(process.execPath, [outpostBin, 'status', '--socket', socket]);
  t.is(text.code, 0, text.stderr);
  t.regex(text.stdout, /^recv: ready$/m);
  t.regex(text.stdout, /^ {2}recv\/pool +running +restarts +0 +up +[\d.]+s$/m);
  t.true(text.stdout.includes(outpost.urls[0]!));
});

test('outpost status without a running outpost says where it asked and exits 1', async (t) => {
  const dir = await outpostDir(t);
  const result = await runToEnd(process.execPath, [outpostBin, 'status', '--socket', join(dir, 'none.sock')]);
  t.is(result.code, 1);
  t.regex(result.stderr, /no running outpost answers on .*none\.sock/);
  t.is(result.stdout, '');
});
