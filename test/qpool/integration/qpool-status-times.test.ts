// /api/status `oldest` and `newest` are the collection times of the oldest and newest values in the
// pool (the spec's status record), not of the values that came first and last (which, after a late
// batch, would make `newest` earlier than `oldest`). A late batch is what a spool replayed
// after a diode outage brings: values collected earlier than some already in the pool.
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { DiodeDouble } from '../../helpers/diode-double.js';
import { freeListen, startServe, tempDir, valueLines, waitForStatus, writeConfig } from '../../helpers/qpool.js';

const values = (count: number) => Array.from({ length: count }, () => randomBytes(128).toString('hex'));
const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();

test('oldest and newest follow collection time when a batch collected earlier arrives later', async (t) => {
  const double = await DiodeDouble.create(t);
  t.teardown(() => double.cleanup());
  const dir = await tempDir(t);
  const config = await writeConfig(dir, { server: { listen: await freeListen(), receive_command: double.receiveCommand('auto-stream-recv') } });
  const serve = await startServe(t, config, double.env);

  const [recent, middle, late] = [at(1), at(5), at(30)];
  double.enqueue(valueLines(values(3), 'keyed', middle) + valueLines(values(3), 'keyed', recent));
  await waitForStatus(serve.url, (status) => status.available === 6);
  // Arrives last, collected first.
  double.enqueue(valueLines(values(2), 'legacy', late));
  const mixed = await waitForStatus(serve.url, (status) => status.available === 8);
  t.is(mixed.oldest, late);
  t.is(mixed.newest, recent);

  // Served newest-arrived first: the late pair goes, then the recent three.
  for (let taken = 0; taken < 5; taken++) t.is((await fetch(`${serve.url}api/random`)).status, 200);
  const left = await waitForStatus(serve.url, (status) => status.available === 3);
  t.is(left.oldest, middle);
  t.is(left.newest, middle);
});
