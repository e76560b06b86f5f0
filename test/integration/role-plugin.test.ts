// Adding a role is one folder and one line: the greeter fixture role lives in
// test/fixtures/roles/greeter/, and test/fixtures/roles/outpost-with-greeter.ts is bin/outpost.ts with
// the greeter added to the role list. That program runs, checks and reports the greeter beside a real
// role through the same supervisor, fronts and control socket, over real sockets.
import { join } from 'node:path';
import test from 'ava';
import type { SupervisorStatus } from '../../src/actor/actor-status.js';
import { hostFile, outpostBin, outpostDir, pollText, startOutpost } from '../helpers/outpost.js';
import { projectPath, runToEnd } from '../helpers/process.js';
import type { Greeting } from '../fixtures/roles/greeter/counter/protocol.js';

const greeterBin = projectPath('dist/test/fixtures/roles/outpost-with-greeter.js');

const run = (bin: string, args: readonly string[]) => runToEnd(process.execPath, [bin, ...args]);

test('outpost run starts the greeter beside monitor: its URL is printed, its front asks its counter actor, status lists its actors', async (t) => {
  const dir = await outpostDir(t);
  const socket = join(dir, 'control.sock');
  const config = {
    roles: { greeter: { host: '127.0.0.1', port: 0, greeting: 'hello from a fixture' }, monitor: { host: '127.0.0.1', port: 0 } },
    supervisor: { control_socket: socket },
  };
  const outpost = await startOutpost(t, dir, config, 2, {}, greeterBin);
  const greeterUrl = /^greeter +(http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(outpost.process.stdout())?.[1];
  if (greeterUrl === undefined) return t.fail(`no greeter URL in:\n${outpost.process.stdout()}`);
  t.regex(outpost.process.stdout(), /^monitor +http:\/\/127\.0\.0\.1:\d+\/$/m);

  // The count lives in the counter actor, one thread away from the front that answers.
  const counts: Greeting[] = [];
  for (let call = 0; call < 3; call++) {
    const response = await fetch(`${greeterUrl}api/greeting`);
    t.is(response.status, 200);
    t.regex(response.headers.get('content-type') ?? '', /^application\/json/);
    counts.push((await response.json()) as Greeting);
  }
  t.deepEqual(
    counts,
    [1, 2, 3].map((count) => ({ greeting: 'hello from a fixture', count })),
  );

  // The operations routes and the router's refusals come with the front, not with the role.
  const health = await fetch(`${greeterUrl}healthz`);
  t.is(health.status, 200);
  t.deepEqual(await health.json(), { status: 'ok' });
  const wrongMethod = await fetch(`${greeterUrl}api/greeting`, { method: 'POST' });
  t.is(wrongMethod.status, 405);
  t.is(typeof ((await wrongMethod.json()) as { error?: unknown }).error, 'string');
  t.is((await fetch(`${greeterUrl}api/nothing`)).status, 404);
  // Every thread pushes its figures to its own role's fronts as it starts, the counter's too.
  const metrics = await pollText(`${greeterUrl}metrics`, (body, status) => status === 200 && body.includes('thread="greeter/counter"'));
  t.false(metrics.includes('thread="monitor/sampler"'));

  const json = await run(greeterBin, ['status', '--socket', socket, '--json']);
  t.is(json.code, 0, json.stderr);
  const status = JSON.parse(json.stdout) as SupervisorStatus;
  t.deepEqual(status.roles.map((role) => role.name).sort(), ['greeter', 'monitor']);
  const greeter = status.roles.find((role) => role.name === 'greeter')!;
  t.true(greeter.ready);
  t.deepEqual(greeter.actors.map((actor) => [actor.name, actor.state, actor.restarts]).sort(), [
    ['greeter/counter', 'running', 0],
    ['greeter/http-front', 'running', 0],
  ]);
  t.deepEqual(
    greeter.actors.flatMap((actor) => actor.urls ?? []),
    [greeterUrl],
  );

  const text = await run(greeterBin, ['status', '--socket', socket]);
  t.is(text.code, 0, text.stderr);
  t.regex(text.stdout, /^greeter: ready$/m);
  t.regex(text.stdout, /^ {2}greeter\/counter +running +restarts +0 +up +[\d.]+s$/m);
});

test('outpost check with the greeter accepts its config and refuses a bad greeter option with exit 2 naming roles.greeter.<option>, and a port it shares with monitor', async (t) => {
  const dir = await outpostDir(t);
  const good = await hostFile(dir, 'good.json', { roles: { greeter: { greeting: 'hi' }, monitor: { host: '127.0.0.1', port: 0 } } });
  const valid = await run(greeterBin, ['check', '-c', good]);
  t.is(valid.code, 0, valid.stderr);
  t.is(valid.stdout, `${good}: valid\n`);

  const bad = await hostFile(dir, 'bad.json', { roles: { greeter: { greeting: '', port: 70_000 }, monitor: {} } });
  const misspelt = await hostFile(dir, 'misspelt.json', { roles: { greeter: { greting: 'hi' } } });
  const clash = await hostFile(dir, 'clash.json', { roles: { greeter: { port: 1 }, monitor: { host: '127.0.0.1', port: 1 } } });
  const refused = await run(greeterBin, ['check', '-c', bad, misspelt, clash]);
  t.is(refused.code, 2);
  t.regex(refused.stderr, /bad\.json: roles\.greeter\.greeting must be at least 1 /);
  t.regex(refused.stderr, /bad\.json: roles\.greeter\.port must be at most 65535\n/);
  t.regex(refused.stderr, /misspelt\.json: roles\.greeter\.greting is not a known option \(did you mean greeting\?\)/);
  // The port the greeter claims is checked against the other roles' as theirs are against each other.
  t.regex(refused.stderr, /clash\.json: roles\.greeter\.port and roles\.monitor\.port both listen on 127\.0\.0\.1:1\n/);
  t.is(refused.stdout, '');

  // The stock outpost, without the added line, knows no greeter.
  const stock = await run(outpostBin, ['check', '-c', good]);
  t.is(stock.code, 2);
  t.regex(stock.stderr, /good\.json: roles\.greeter is not a known option\n/);
  t.regex((await run(greeterBin, ['roles'])).stdout, /^greeter +greets and counts/m);
});
