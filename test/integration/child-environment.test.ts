// What the programs outpost starts see of its environment: PATH, HOME, the locale and the variables
// each needs, never the pool passphrase or a token. Each child here is a shell that writes `env` to a
// file before doing its job.
import { randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { ContainerCli } from '../../actors/monitor/sampler/probes/container-cli.js';
import { runReloadCommand } from '../../actors/proxy/client/reload-hook.js';
import { runReceiveCommand } from '../../actors/qpool/diode-receiver/receive-command.js';
import { runSendCommand } from '../../actors/qpool/diode-sender/send-command.js';
import { DiodeDouble } from '../helpers/diode-double.js';
import { freeListen, startServe, tempDir, valueLines, waitForStatus, writeConfig } from '../helpers/qpool.js';

const poolKey = 'child environment pool passphrase';
const token = 'route-token-that-stays-home';

// The environment of this test process, which each runner below inherits from.
process.env.APP_POOL_KEY = poolKey;
process.env.CERTHUB_TOKEN = token;

/** `command` run through a shell that first writes its environment to `file`. */
function dumpingEnvironment(file: string, command: string[] = ['true']): string[] {
  return ['/bin/sh', '-c', 'env > "$0" && exec "$@"', file, ...command];
}

async function environmentOf(file: string): Promise<Map<string, string>> {
  const lines = (await readFile(file, 'utf8')).split('\n').filter((line) => line.includes('='));
  return new Map(lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

function assertNoSecret(t: ExecutionContext, environment: Map<string, string>): void {
  t.false(environment.has('APP_POOL_KEY'));
  t.false(environment.has('CERTHUB_TOKEN'));
  for (const value of environment.values()) {
    t.false(value.includes(poolKey));
    t.false(value.includes(token));
  }
  t.is(environment.get('PATH'), process.env.PATH);
}

test('qpool serve: the receive command never sees APP_POOL_KEY or a token, and the pool still opens with the key', async (t) => {
  const dir = await tempDir(t);
  const double = await DiodeDouble.create(t);
  t.teardown(() => double.cleanup());
  const dump = join(dir, 'receive-environment');
  const config = await writeConfig(dir, {
    server: {
      listen: await freeListen(),
      receive_command: dumpingEnvironment(dump, double.receiveCommand('auto-stream-recv')),
      pool_file: join(dir, 'pool.bin'),
    },
  });
  double.enqueue(valueLines([randomBytes(128).toString('hex'), randomBytes(128).toString('hex')]));
  const serve = await startServe(t, config, { APP_POOL_KEY: poolKey, CERTHUB_TOKEN: token });
  t.like(await waitForStatus(serve.url, (status) => status.available === 2), { available: 2 });
  assertNoSecret(t, await environmentOf(dump));
});

test('the diode commands get PATH, HOME and the locale of ours and nothing else', async (t) => {
  const dir = await tempDir(t);
  const sent = join(dir, 'send-environment');
  t.deepEqual(await runSendCommand(dumpingEnvironment(sent), 'a batch\n', 20_000), { ok: true });
  assertNoSecret(t, await environmentOf(sent));
  const received = join(dir, 'receive-environment');
  t.like(await runReceiveCommand(dumpingEnvironment(received), () => {}).ended, { code: 0 });
  assertNoSecret(t, await environmentOf(received));
});

test('a reload command gets CERTHUB_AGENT_DOMAINS and no token', async (t) => {
  const dir = await tempDir(t);
  const dump = join(dir, 'reload-environment');
  const [program, ...args] = dumpingEnvironment(dump);
  await runReloadCommand([program!, ...args], ['one.example.test', 'two.example.test']);
  const environment = await environmentOf(dump);
  assertNoSecret(t, environment);
  t.is(environment.get('CERTHUB_AGENT_DOMAINS'), 'one.example.test,two.example.test');
});

test('the container CLI gets the variables that choose its engine, and no token', async (t) => {
  const dir = await tempDir(t);
  const dump = join(dir, 'docker-environment');
  await writeFile(join(dir, 'docker'), `#!/bin/sh\nenv > '${dump}'\n[ "$1" = --version ] && echo 'Docker version 27.1.1, build 6312585'\nexit 0\n`);
  await chmod(join(dir, 'docker'), 0o755);
  process.env.DOCKER_HOST = 'unix:///run/user/1000/docker.sock';
  const reading = await new ContainerCli({ showArguments: false, pathVariable: dir }).read();
  t.like(reading.status, { available: true, name: 'docker', version: '27.1.1' });
  const environment = await environmentOf(dump);
  assertNoSecret(t, environment);
  t.is(environment.get('DOCKER_HOST'), 'unix:///run/user/1000/docker.sock');
});
