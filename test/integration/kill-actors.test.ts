// Actors killed, not the process: under load, the pool actor of qpool serve (and
// certhub's domains actor) has its thread terminated at random instants by the supervisor's own hook (OUTPOST_TEST_KILL_ACTOR and
// SIGUSR2, src/actor/test-kill.ts). The supervisor restarts it within its policy, every request gets
// an answer or a closed connection before its deadline, no value is ever served twice and no
// domain answered as added is lost.
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { certhubDataDir, startCerthub, testAdminKey, type RunningCerthub } from '../helpers/certhub.js';
import { getDomain } from '../helpers/certhub-domains.js';
import { DiodeDouble } from '../helpers/diode-double.js';
import type { RunningProcess } from '../helpers/process.js';
import { freeListen, startServe, takeValue, tempDir, valueLines, waitForStatus, writeConfig, type Take } from '../helpers/qpool.js';

/** Past this a request counts as hung: a restart (the pool file reopened with PBKDF2) takes a few seconds on this machine. */
const requestDeadlineMs = 20_000;

/**
 * Sends the kill signal until the hook terminates `actor`: a signal that lands while the actor is
 * still in backoff or starting (the hook says "not running") terminates nothing, so it is sent again
 * once that answer is in. Resolves when the `count`th termination is logged.
 */
async function killActor(process_: RunningProcess, actor: string, count: number): Promise<void> {
  const said = (pattern: string) => (process_.stdout() + process_.stderr()).split(pattern).length - 1;
  for (;;) {
    const refusedBefore = said(`SIGUSR2: actor ${actor} is `);
    process.kill(process_.child.pid ?? 0, 'SIGUSR2');
    const answer = await process_.waitFor(
      new RegExp(`(SIGUSR2: terminated actor ${actor}[^]*){${count}}|(SIGUSR2: actor ${actor.replace('/', '\\/')} is [^]*){${refusedBefore + 1}}`),
      20_000,
    );
    if (answer[1] !== undefined) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('the pool actor terminated at random instants under load: restarted, every request answered or closed, no value served twice', async (t) => {
  const dir = await tempDir(t);
  const double = await DiodeDouble.create(t);
  t.teardown(() => double.cleanup());
  const config = await writeConfig(dir, {
    server: {
      listen: await freeListen(),
      max_entries: 20_000,
      served_history: 20_000,
      receive_command: double.receiveCommand('auto-stream-recv'),
      pool_file: join(dir, 'pool.bin'),
    },
  });
  const serve = await startServe(t, config, { ...double.env, APP_POOL_KEY: 'kill-actors passphrase', OUTPOST_TEST_KILL_ACTOR: 'recv/pool' });
  const fed = Array.from({ length: 1500 }, () => randomBytes(128).toString('hex'));
  double.enqueue(valueLines(fed));
  await waitForStatus(serve.url, (status) => status.available === fed.length);

  // The default policy allows 5 restarts in 60 s: 4 kills stay within it.
  const kills = 4;
  const outcomes: Take[] = [];
  const restarts = () => (serve.process.stdout() + serve.process.stderr()).split('restarting actor recv/pool').length - 1;
  let stopLoad = false;
  const load = Array.from({ length: 8 }, async () => {
    while (!stopLoad) outcomes.push(await takeValue(serve.url, requestDeadlineMs));
  });
  for (let kill = 0; kill < kills; kill++) {
    // A random instant: after 20-120 more answers, while the other loops have requests in flight.
    const target = outcomes.length + 20 + Math.floor(Math.random() * 100);
    while (outcomes.length < target) await new Promise((resolve) => setTimeout(resolve, 5));
    await killActor(serve.process, 'recv/pool', kill + 1);
    await serve.process.waitFor(new RegExp(`(restarting actor recv/pool[^]*){${kill + 1}}`), 20_000);
    // Back: a value is served again before the next kill.
    const servedBefore = outcomes.filter((outcome) => outcome.kind === 'value').length;
    while (outcomes.filter((outcome) => outcome.kind === 'value').length === servedBefore) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  stopLoad = true;
  await Promise.all(load);

  const values = outcomes.flatMap((outcome) => (outcome.kind === 'value' ? [outcome.value] : []));
  const refusals = outcomes.flatMap((outcome) => (outcome.kind === 'refused' ? [`${outcome.status} ${outcome.body}`] : []));
  t.log(
    `${outcomes.length} requests: ${values.length} values, ${refusals.length} refused (${[...new Set(refusals)].join('; ')}), ${outcomes.filter((outcome) => outcome.kind === 'closed').length} closed; ${restarts()} restarts`,
  );
  t.is(outcomes.filter((outcome) => outcome.kind === 'hung').length, 0, 'no request outlived its deadline');
  t.is(restarts(), kills);
  t.is(new Set(values).size, values.length, 'no value was served twice');
  const known = new Set(fed);
  t.deepEqual(
    values.filter((value) => !known.has(value)),
    [],
  );
  for (const refusal of refusals) t.regex(refusal, /^5\d\d \{"error":"[^"]+"\}$/);
  // What is left comes out once each too: a value answered before a kill but not recorded as served would come back here.
  for (let outcome = await takeValue(serve.url, requestDeadlineMs); outcome.kind === 'value'; outcome = await takeValue(serve.url, requestDeadlineMs))
    values.push(outcome.value);
  t.is(new Set(values).size, values.length, 'no value was served twice, the drain included');
  const status = await waitForStatus(serve.url, (current) => current.available === 0);
  t.true(status.served_total >= values.length, `served_total ${status.served_total} < ${values.length} values answered`);
  t.true(status.available + status.served_total <= fed.length, `${status.available} available + ${status.served_total} served > ${fed.length} fed`);
  process.kill(serve.process.child.pid ?? 0, 'SIGTERM');
  t.is(await serve.process.exited, 0);
});

type AddOutcome = { kind: 'added'; name: string } | { kind: 'refused'; status: number; body: string } | { kind: 'closed' } | { kind: 'hung' };

/**
 * The domain's name as certhub answers it; when it answers otherwise, what the data directory and the
 * log say of that domain, so that a loss can be told from a front that missed it.
 */
async function domainOrWhy(t: ExecutionContext, server: RunningCerthub, name: string): Promise<string> {
  try {
    return (await getDomain(server, name)).name;
  } catch (error) {
    const files = (await readdir(join(server.dataDir, 'domains'))).filter((file) => file.includes(`${name}.`));
    const lines = (server.stdout() + server.stderr())
      .split('\n')
      .filter((line) => line.includes(`${name}.`) || /SIGUSR2|restarting|terminated|error/i.test(line));
    t.log(`${String(error)}\nfiles: ${files.join(', ') || 'none'}\n${lines.join('\n')}`);
    return String(error);
  }
}

async function addDomainOnce(server: RunningCerthub, name: string): Promise<AddOutcome> {
  try {
    const response = await fetch(`${server.url}api/admin/domains`, {
      method: 'POST',
      headers: { authorization: `Bearer ${testAdminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, target: '203.0.113.7' }),
      signal: AbortSignal.timeout(requestDeadlineMs),
    });
    const body = await response.text();
    return response.status === 201 ? { kind: 'added', name } : { kind: 'refused', status: response.status, body };
  } catch (error) {
    return (error as Error).name === 'TimeoutError' ? { kind: 'hung' } : { kind: 'closed' };
  }
}

test('the cert domains actor terminated at random instants while domains are added: restarted, every add answered or closed, no added domain lost', async (t) => {
  const dataDir = await certhubDataDir(t);
  let server = await startCerthub(t, dataDir, ['--demo'], { OUTPOST_TEST_KILL_ACTOR: 'cert/domains' });
  const kills = 3;
  const outcomes: AddOutcome[] = [];
  let next = 0;
  let stopLoad = false;
  const load = Array.from({ length: 4 }, async () => {
    while (!stopLoad) outcomes.push(await addDomainOnce(server, `k${next++}`));
  });
  for (let kill = 0; kill < kills; kill++) {
    const target = outcomes.length + 5 + Math.floor(Math.random() * 30);
    while (outcomes.length < target) await new Promise((resolve) => setTimeout(resolve, 5));
    await killActor(server, 'cert/domains', kill + 1);
    await server.waitFor(new RegExp(`(restarting actor cert/domains[^]*){${kill + 1}}`), 20_000);
    const addedBefore = outcomes.filter((outcome) => outcome.kind === 'added').length;
    while (outcomes.filter((outcome) => outcome.kind === 'added').length === addedBefore) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  stopLoad = true;
  await Promise.all(load);

  const added = outcomes.flatMap((outcome) => (outcome.kind === 'added' ? [outcome.name] : []));
  const refusals = outcomes.flatMap((outcome) => (outcome.kind === 'refused' ? [`${outcome.status} ${outcome.body}`] : []));
  t.log(
    `${outcomes.length} adds: ${added.length} added, ${refusals.length} refused (${[...new Set(refusals)].join('; ')}), ${outcomes.filter((outcome) => outcome.kind === 'closed').length} closed`,
  );
  t.is(outcomes.filter((outcome) => outcome.kind === 'hung').length, 0, 'no add outlived its deadline');
  for (const refusal of refusals) t.regex(refusal, /^5\d\d \{"error":"[^"]+"\}$/);
  // Every domain answered 201 is there, in this process and in the next one on the same data.
  for (const name of added) t.is((await domainOrWhy(t, server, name)).split('.')[0], name);
  process.kill(server.child.pid ?? 0, 'SIGTERM');
  t.is(await server.exited, 0);
  server = await startCerthub(t, dataDir);
  for (const name of added) t.is((await domainOrWhy(t, server, name)).split('.')[0], name);
  process.kill(server.child.pid ?? 0, 'SIGTERM');
  t.is(await server.exited, 0);
});
