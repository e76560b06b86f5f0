// qpool serve with a pool file under concurrent load: its front holds values as a memory-only front
// does, each on disk as served before the front gets it (actors/qpool/pool/logic.ts). One commit then
// carries more values than there are requests in flight, every value is still served once, and
// after a stop the files account for every value fed: served, held and lost with the stop, or left.
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import test from 'ava';
import { PoolFiles } from '../../../actors/qpool/pool/pool-files.js';
import { DiodeDouble } from '../../helpers/diode-double.js';
import { freeListen, poolStatus, startServe, tempDir, valueLines, waitForStatus, writeConfig } from '../../helpers/qpool.js';

const passphrase = 'held durable test passphrase';
const clients = 24;

async function takeValue(url: string): Promise<string | undefined> {
  const response = await fetch(`${url}api/random/hex`);
  const body = await response.text();
  if (response.status === 503 && body === 'pool empty\n') return undefined;
  if (response.status !== 200) throw new Error(`unexpected answer ${response.status} ${body}`);
  return body.trim();
}

async function takeConcurrently(url: string, perClient: number): Promise<string[]> {
  const loops = Array.from({ length: clients }, async () => {
    const taken: string[] = [];
    for (let value = await takeValue(url); value !== undefined; value = taken.length < perClient ? await takeValue(url) : undefined) taken.push(value);
    return taken;
  });
  return (await Promise.all(loops)).flat();
}

test('with pool_file a front under load holds values on disk as served: a commit carries more values than requests in flight, none is served twice', async (t) => {
  const double = await DiodeDouble.create(t);
  t.teardown(() => double.cleanup());
  const dir = await tempDir(t);
  const poolFile = join(dir, 'pool.bin');
  const config = await writeConfig(dir, {
    server: { listen: await freeListen(), receive_command: double.receiveCommand('auto-stream-recv'), pool_file: poolFile },
  });
  const env = { ...double.env, APP_POOL_KEY: passphrase };
  const fed = Array.from({ length: 4000 }, () => randomBytes(128).toString('hex'));
  let serve = await startServe(t, config, env);
  double.enqueue(valueLines(fed));
  await waitForStatus(serve.url, (status) => status.available === fed.length);

  const served = await takeConcurrently(serve.url, 100);
  t.is(new Set(served).size, served.length, 'no value served twice');
  process.kill(-(serve.process.child.pid ?? 0), 'SIGTERM');
  t.is(await serve.process.exited, 0);

  const { files, loaded } = await PoolFiles.load(poolFile, passphrase, (password, kdf) =>
    Promise.resolve(pbkdf2Sync(password, kdf.salt, kdf.iterations, 32, 'sha256')),
  );
  await files.close();
  const largest = Math.max(...loaded.journal.map((record) => (record.kind === 'served' ? record.keys.length : 0)));
  t.true(largest > clients, `the largest commit carried ${largest} values, no more than the ${clients} requests in flight`);

  // Held values the stop left with the front are lost, counted as served; the rest is served once.
  serve = await startServe(t, config, env);
  const after = await poolStatus(serve.url);
  t.true(after.served_total >= served.length);
  t.is(after.available + after.served_total, fed.length, 'every value fed is served, lost as served, or still there');
  const drained = await takeConcurrently(serve.url, Infinity);
  t.is(drained.length, after.available);
  const all = [...served, ...drained];
  t.is(new Set(all).size, all.length, 'nothing served before the restart comes back');
  t.true(all.every((value) => fed.includes(value)));
});
