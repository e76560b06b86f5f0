// One owner per port and per store: a second server asked for a port or a pool file that a running one
// holds (or that anything else holds) exits 1 saying so, and the first goes on as if nothing happened.
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { reservePort } from '../../src/http/port.js';
import { startAnuDouble } from '../qpool/fixtures/anu/anu-double.js';
import { DiodeDouble } from '../helpers/diode-double.js';
import { listeningSockets } from '../helpers/listening-sockets.js';
import { projectPath, startProcess, type RunningProcess } from '../helpers/process.js';
import { freeListen, qpoolBin, tempDir, valueLines, waitForStatus, writeConfig } from '../helpers/qpool.js';

const passphrase = 'correct horse battery staple';

interface ServerKind {
  command: string;
  /** The arguments that make it listen on 127.0.0.1:port. */
  args(t: ExecutionContext, port: number): Promise<string[]>;
  /** A path every instance answers 200 on. */
  path: string;
}

const servers: Record<string, ServerKind> = {
  hostwatch: {
    command: 'hostwatch',
    args: (_t, port) => Promise.resolve([projectPath('dist/bin/hostwatch.js'), '-H', '127.0.0.1', '-p', String(port)]),
    path: 'api/snapshot',
  },
  'netspeed server': {
    command: 'netspeed server',
    args: (_t, port) => Promise.resolve([projectPath('dist/bin/netspeed.js'), 'server', '-H', '127.0.0.1', '-p', String(port), '--threads', '2']),
    path: 'api/info',
  },
  'qpool serve': {
    command: 'qpool serve',
    async args(t, port) {
      const config = await writeConfig(await tempDir(t), { server: { listen: `127.0.0.1:${port}`, receive_command: ['true'] } });
      return [qpoolBin, 'serve', '-c', config];
    },
    path: 'api/status',
  },
};

for (const [name, kind] of Object.entries(servers)) {
  test(`a second ${name} on the port of a running one exits 1 with "address in use" and its pid; the first keeps answering`, async (t) => {
    const port = await reservePort('127.0.0.1');
    const first = startProcess(t, process.execPath, await kind.args(t, port));
    const [url] = await first.waitFor(/^http:\/\/127\.0\.0\.1:\d+\/$/m);
    t.is((await fetch(`${url}${kind.path}`)).status, 200);
    const second = startProcess(t, process.execPath, await kind.args(t, port));
    t.is(await exitedOrListening(second), 1);
    t.is(second.stderr(), `${kind.command.split(' ')[0]!}: cannot listen on 127.0.0.1:${port}: address in use by ${kind.command} (pid ${first.child.pid!})\n`);
    t.is(second.stdout(), '');
    t.is((await fetch(`${url}${kind.path}`)).status, 200);
    t.is(first.child.exitCode, null);
    if (name === 'netspeed server') {
      // Its two front threads share the port: two listening sockets of one process.
      const sockets = listeningSockets(port).filter((line) => line.includes(`127.0.0.1:${port} `));
      t.is(sockets.length, 2, sockets.join('\n'));
      t.true(
        sockets.every((line) => line.includes(`pid=${first.child.pid!},`)),
        sockets.join('\n'),
      );
    }
  });
}

test('a port that a plain node:net server holds is refused with "address in use"', async (t) => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen({ host: '127.0.0.1', port: 0 }, resolve));
  t.teardown(() => holder.close());
  const { port } = holder.address() as AddressInfo;
  for (const kind of Object.values(servers)) {
    const server = startProcess(t, process.execPath, await kind.args(t, port));
    t.is(await exitedOrListening(server), 1);
    t.is(server.stderr(), `${kind.command.split(' ')[0]!}: cannot listen on 127.0.0.1:${port}: address in use\n`);
  }
});

test('a second qpool serve on the pool file of a running one, on another port, is refused naming its pid; no value is served twice', async (t) => {
  const double = await DiodeDouble.create(t);
  t.teardown(() => double.cleanup());
  const dir = await tempDir(t);
  const poolFile = join(dir, 'pool.bin');
  const server = { receive_command: double.receiveCommand('stream-recv'), pool_file: poolFile };
  const firstConfig = await writeConfig(dir, { server: { ...server, listen: await freeListen() } }, 'first.json');
  const secondListen = await freeListen();
  const secondConfig = await writeConfig(dir, { server: { ...server, listen: secondListen } }, 'second.json');
  const env = { ...double.env, APP_POOL_KEY: passphrase };

  const first = startProcess(t, process.execPath, [qpoolBin, 'serve', '-c', firstConfig], env);
  const [url] = await first.waitFor(/^http:\/\/\S+\/$/m, 20_000);
  const values = Array.from({ length: 40 }, () => randomBytes(128).toString('hex'));
  double.enqueue(valueLines(values));
  await waitForStatus(url, (status) => status.available === 40);

  const second = startProcess(t, process.execPath, [qpoolBin, 'serve', '-c', secondConfig], env);
  t.is(await exitedOrListening(second), 1);
  t.is(second.stderr(), `qpool: cannot use the pool file ${poolFile}: it is in use by qpool serve (pid ${first.child.pid!})\n`);
  await t.throwsAsync(fetch(`http://${secondListen}/api/status`), undefined, 'the second never listened');

  const served: string[] = [];
  for (;;) {
    const response = await fetch(`${url}api/random`);
    if (response.status === 503) break;
    t.is(response.status, 200);
    served.push(((await response.json()) as { value: string }).value);
  }
  t.is(served.length, 40);
  t.deepEqual([...served].sort(), [...values].sort(), 'every value once, from the first server');
});

test('a second qpool collect with keyed requests on the ledger of a running one is refused naming its pid; the first spent one request', async (t) => {
  const anu = await startAnuDouble();
  t.teardown(() => anu.close());
  const diode = await DiodeDouble.create(t);
  t.teardown(() => diode.cleanup());
  const dir = await tempDir(t);
  const config = await writeConfig(dir, {
    anu: { keyed: { enabled: true, api_key: 'test-key', url: anu.keyedUrl } },
    diode: { send_command: diode.sendCommand() },
  });
  const env = { ...diode.env, QPOOL_STATE_DIR: join(dir, 'state') };
  const first = startProcess(t, process.execPath, [qpoolBin, 'collect', '-c', config], env);
  const keyedRequests = () => anu.requests.filter((request) => request.source === 'keyed').length;
  while (keyedRequests() === 0) await new Promise((resolve) => setTimeout(resolve, 50));
  const second = startProcess(t, process.execPath, [qpoolBin, 'collect', '-c', config], env);
  t.is(await second.exited, 1);
  t.is(
    second.stderr(),
    `qpool: cannot use the keyed request ledger ${join(dir, 'state', 'send-ledger.json')}: it is in use by qpool collect (pid ${first.child.pid!})\n`,
  );
  t.is(keyedRequests(), 1);
  t.is(first.child.exitCode, null);
});

/** The exit code of a server that must refuse to start, or 'listening' when it started after all. */
function exitedOrListening(server: RunningProcess): Promise<number | string> {
  // waitFor fails as soon as the process exits, before `exited` (which waits for its output) settles.
  return server.waitFor(/^http:\/\/\S+\/$/m, 60_000).then(
    () => 'listening',
    () => server.exited,
  );
}
