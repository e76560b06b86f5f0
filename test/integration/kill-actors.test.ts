// Actors killed, not the process (issue 28 item 3): under load, the pool actor of qpool serve has its
// thread terminated at random instants by the supervisor's own hook (OUTPOST_TEST_KILL_ACTOR and
// SIGUSR2, src/actor/test-kill.ts). The supervisor restarts it within its policy, every request gets
// an answer or a closed connection before its deadline, and no value is ever served twice.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import test from 'ava';
import { DiodeDouble } from '../helpers/diode-double.js';
import { freeListen, startServe, tempDir, valueLines, waitForStatus, writeConfig } from '../helpers/qpool.js';

/** Past this a request counts as hung: a restart (the pool file reopened with PBKDF2) takes a few seconds on this machine. */
const requestDeadlineMs = 20_000;

type Outcome = { kind: 'value'; value: string } | { kind: 'refused'; status: number; body: string } | { kind: 'closed' } | { kind: 'hung' };

async function takeValue(url: string): Promise<Outcome> {
  try {
    const response = await fetch(`${url}api/random`, { signal: AbortSignal.timeout(requestDeadlineMs) });
    const body = await response.text();
    return response.status === 200 ? { kind: 'value', value: (JSON.parse(body) as { value: string }).value } : { kind: 'refused', status: response.status, body };
  } catch (error) {
    return (error as Error).name === 'TimeoutError' ? { kind: 'hung' } : { kind: 'closed' };
  }
}

test('the pool actor terminated at random instants under load: restarted, every request answered or closed, no value served twice', async (t) => {
  const dir = await tempDir(t);
  const double = await DiodeDouble.create();
  t.teardown(() => double.cleanup());
  const config = await writeConfig(dir, {
    server: { listen: await freeListen(), max_entries: 20_000, served_history: 20_000, receive_command: double.receiveCommand('auto-stream-recv'), pool_file: join(dir, 'pool.bin') },
  });
  const serve = await startServe(t, config, { ...double.env, APP_POOL_KEY: 'kill-actors passphrase', OUTPOST_TEST_KILL_ACTOR: 'recv/pool' });
  const fed = Array.from({ length: 1500 }, () => randomBytes(128).toString('hex'));
  double.enqueue(valueLines(fed));
  await waitForStatus(serve.url, (status) => status.available === fed.length);

  // The default policy allows 5 restarts in 60 s: 4 kills stay within it.
  const kills = 4;
  const outcomes: Outcome[] = [];
  const restarts = () => (serve.process.stdout() + serve.process.stderr()).split('restarting actor recv/pool').length - 1;
  let stopLoad = false;
  const load = Array.from({ length: 8 }, async () => {
    while (!stopLoad) outcomes.push(await takeValue(serve.url));
  });
  for (let kill = 0; kill < kills; kill++) {
    // A random instant: after 20-120 more answers, while the other loops have requests in flight.
    const target = outcomes.length + 20 + Math.floor(Math.random() * 100);
    while (outcomes.length < target) await new Promise((resolve) => setTimeout(resolve, 5));
    process.kill(serve.process.child.pid ?? 0, 'SIGUSR2');
    await serve.process.waitFor(new RegExp(`(restarting actor recv/pool[^]*){${kill + 1}}`), 20_000);
    // Back: a value is served again before the next kill.
    const servedBefore = outcomes.filter((outcome) => outcome.kind === 'value').length;
    while (outcomes.filter((outcome) => outcome.kind === 'value').length === servedBefore) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  stopLoad = true;
  await Promise.all(load);

  const values = outcomes.flatMap((outcome) => (outcome.kind === 'value' ? [outcome.value] : []));
  const refusals = outcomes.flatMap((outcome) => (outcome.kind === 'refused' ? [`${outcome.status} ${outcome.body}`] : []));
  t.log(`${outcomes.length} requests: ${values.length} values, ${refusals.length} refused (${[...new Set(refusals)].join('; ')}), ${outcomes.filter((outcome) => outcome.kind === 'closed').length} closed; ${restarts()} restarts`);
  t.is(outcomes.filter((outcome) => outcome.kind === 'hung').length, 0, 'no request outlived its deadline');
  t.is(restarts(), kills);
  t.is(new Set(values).size, values.length, 'no value was served twice');
  const known = new Set(fed);
  t.deepEqual(values.filter((value) => !known.has(value)), []);
  for (const refusal of refusals) t.regex(refusal, /^5\d\d \{"error":"[^"]+"\}$/);
  // What is left comes out once each too: a value answered before a kill but not recorded as served would come back here.
  for (let outcome = await takeValue(serve.url); outcome.kind === 'value'; outcome = await takeValue(serve.url)) values.push(outcome.value);
  t.is(new Set(values).size, values.length, 'no value was served twice, the drain included');
  const status = await waitForStatus(serve.url, (current) => current.available === 0);
  t.true(status.served_total >= values.length, `served_total ${status.served_total} < ${values.length} values answered`);
  t.true(status.available + status.served_total <= fed.length, `${status.available} available + ${status.served_total} served > ${fed.length} fed`);
  process.kill(serve.process.child.pid ?? 0, 'SIGTERM');
  t.is(await serve.process.exited, 0);
});
