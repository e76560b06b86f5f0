// qpool serve with a pool file, crashed on purpose: the server is killed with SIGKILL at random
// moments under concurrent load, restarted over and over, and every value it ever answered is kept.
// The promise under test is the spec's: a value is on disk as served before its response is
// written, so a crash can lose values but never serve one twice. Replayed diode chunks must not
// bring served values back either.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { maximumHeld } from '../../../actors/qpool/site/held-values.js';
import { DiodeDouble } from '../../helpers/diode-double.js';
import { freeListen, poolStatus, startServe, tempDir, valueLines, waitForStatus, writeConfig, type RunningServe } from '../../helpers/qpool.js';

const passphrase = 'durability test passphrase';
const formats = ['hex', 'json', 'base64', 'binary'] as const;
type Format = (typeof formats)[number];

function freshValues(count: number): string[] {
  return Array.from({ length: count }, () => randomBytes(128).toString('hex'));
}

/** A diode double removed after the test, with the receiver processes it may have left behind. */
async function diodeDouble(t: ExecutionContext): Promise<DiodeDouble> {
  const double = await DiodeDouble.create(t);
  t.teardown(async () => {
    killDiodeTools(double);
    await double.cleanup();
  });
  return double;
}

/**
 * `serve` runs its receive command in a process group of its own, so SIGKILL to serve's group leaves
 * a running auto-stream-recv behind: it would keep taking chunks off the queue (and fail to write
 * them to a pipe nobody reads). Every process of the diode tool that runs against this test's own
 * spool is ended, by pid.
 */
function killDiodeTools(double: DiodeDouble): number {
  let killed = 0;
  const marker = `DIODE_DOUBLE_DIR=${double.dir}`;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (!cmdline.includes('diode-tool.js')) continue;
      if (!readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(marker)) continue;
      process.kill(Number(name), 'SIGKILL');
      killed++;
    } catch {
      // Gone meanwhile.
    }
  }
  return killed;
}

async function startPoolServe(t: ExecutionContext, config: string, double: DiodeDouble): Promise<RunningServe> {
  return startServe(t, config, { ...double.env, APP_POOL_KEY: passphrase });
}

/** One value request: the value if it was answered in full with 200, the status otherwise; throws if the connection failed. */
async function fetchValue(url: string, format: Format): Promise<{ value: string } | { status: number; body: string }> {
  const path = format === 'json' ? 'api/random' : `api/random/${format}`;
  const response = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(10_000) });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) return { status: response.status, body: body.toString('utf8') };
  switch (format) {
    case 'json':
      return { value: (JSON.parse(body.toString('utf8')) as { value: string }).value };
    case 'hex':
      return { value: body.toString('utf8').replace(/\n$/, '') };
    case 'base64':
      return { value: Buffer.from(body.toString('utf8').trim(), 'base64').toString('hex') };
    case 'binary':
      return { value: body.length === 128 ? body.toString('hex') : `bad binary body of ${body.length} bytes` };
  }
}

/** Everything answered, in order, across every server run of a test. */
class ServedLog {
  readonly values: string[] = [];
  readonly other: string[] = [];

  record(answer: { value: string } | { status: number; body: string }): boolean {
    if ('value' in answer) {
      this.values.push(answer.value);
      return true;
    }
    this.other.push(`${answer.status} ${answer.body.trim()}`);
    return false;
  }

  duplicates(): string[] {
    const seen = new Set<string>();
    return this.values.filter((value) => (seen.has(value) ? true : (seen.add(value), false)));
  }
}

/** Takes values (in parallel, every format) until the pool answers "pool empty"; returns how many. */
async function drain(url: string, log: ServedLog, parallel = 1): Promise<number> {
  const counts = await Promise.all(
    Array.from({ length: parallel }, async (_, loop) => {
      let count = 0;
      for (let index = loop; ; index++) {
        const answer = await fetchValue(url, formats[index % formats.length]!);
        if (log.record(answer)) {
          count++;
          continue;
        }
        const last = log.other.pop();
        if (last !== '503 {"error":"pool empty"}' && last !== '503 pool empty') throw new Error(`draining ended with ${last}`);
        return count;
      }
    }),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

test('SIGKILL at random moments under concurrent load never lets a value be served twice', async (t) => {
  const dir = await tempDir(t);
  const double = await diodeDouble(t);
  const poolFile = join(dir, 'pool', 'pool.bin');
  const config = await writeConfig(dir, {
    // A small journal limit compacts every few hundred values, so the kills also land during compactions.
    server: {
      listen: await freeListen(),
      max_entries: 20_000,
      served_history: 20_000,
      receive_command: double.receiveCommand('auto-stream-recv'),
      pool_file: poolFile,
      journal_limit_kib: 16,
    },
  });

  const fed = new Set<string>();
  const feed = (values: string[]) => {
    for (const value of values) fed.add(value);
    double.enqueue(valueLines(values));
  };
  const log = new ServedLog();

  let serve = await startPoolServe(t, config, double);
  const fullPool = 3000;
  feed(freshValues(fullPool));
  await waitForStatus(serve.url, (status) => status.available === fullPool);

  const rounds = 7;
  const loops = 24;
  const arrivalsPerRound = 100;
  const perRound: string[] = [];
  for (let round = 0; round < rounds; round++) {
    // A kill loses what the front held (up to maximumHeld values, on disk as served), so each round
    // first tops the pool back up: every round loads the server with the same depth.
    const missing = fullPool - (await poolStatus(serve.url)).available;
    if (missing > 0) feed(freshValues(missing));
    const before = await waitForStatus(serve.url, (status) => status.available >= fullPool);
    // A round asks for no more values than the pool holds when it starts (arrivals only add to it),
    // so no request can meet an empty pool however fast this machine answers. The kill comes after a
    // random number of answers, while the other loops have requests in flight: under load whatever
    // the machine's speed, never after the load has run out.
    const budget = before.available;
    t.true(budget >= 8 * loops, `round ${round}: only ${budget} values left to load the server with`);
    const killAt = 1 + Math.floor(Math.random() * Math.floor(budget / 4));
    // Fresh values arrive during the load too, so that ingest records sit between served records in the journal.
    const arrivals = freshValues(arrivalsPerRound);
    // When each request that failed (its connection cut, or no answer) did: a kill cuts only those in
    // flight at its instant or sent after it.
    const failedAt: number[] = [];
    let issued = 0;
    let answered = 0;
    let reachKillMoment = () => {};
    const killMoment = new Promise<void>((resolve) => (reachKillMoment = resolve));
    const startedAt = performance.now();
    const load = Array.from({ length: loops }, async (_, loop) => {
      // Until the server is gone (then every request fails at once), or the budget is spent.
      for (let index = 0; issued < budget; index++) {
        issued++;
        let answer;
        try {
          answer = await fetchValue(serve.url, formats[(loop + index) % formats.length]!);
        } catch {
          failedAt.push(performance.now());
          return;
        }
        if (log.record(answer) && ++answered === killAt) reachKillMoment();
      }
    });
    // Only if answers other than values kept the count from being reached; the assertions below say which.
    void Promise.all(load).then(reachKillMoment);
    const arrivalsFed = new Promise((resolve) => setTimeout(resolve, 20)).then(() => feed(arrivals));
    await killMoment;
    const killedAt = performance.now();
    const killedAfterMs = Math.round(killedAt - startedAt);
    process.kill(-(serve.process.child.pid ?? 0), 'SIGKILL');
    await serve.process.exited;
    await arrivalsFed;
    const leftBehind = killDiodeTools(double);
    await Promise.all(load);
    perRound.push(
      `round ${round}: killed after ${killAt} answers (${killedAfterMs} ms), ${answered} values answered, ${failedAt.length} requests cut off, ${leftBehind} receiver(s) left behind, status before ${before.available}/${before.served_total}`,
    );
    t.deepEqual(
      failedAt.filter((at) => at < killedAt).map((at) => `${Math.round(killedAt - at)} ms before the kill`),
      [],
      `round ${round}: a request failed before the kill`,
    );

    serve = await startPoolServe(t, config, double);
    const after = await poolStatus(serve.url);
    const distinct = new Set(log.values).size;
    t.true(after.served_total >= distinct, `round ${round}: served_total ${after.served_total} < ${distinct} values answered`);
    t.true(after.available + after.served_total <= fed.size, `round ${round}: ${after.available} available + ${after.served_total} served > ${fed.size} fed`);
  }
  t.log(perRound.join('\n'));

  // Arrivals still in the diode (fed just before the last kill) come in now, not during the drain:
  // a value queued behind them, with a collection time of its own, is the newest once all are in.
  const lastTime = new Date(Date.now() + 60_000).toISOString();
  const last = freshValues(1);
  for (const value of last) fed.add(value);
  double.enqueue(valueLines(last, 'legacy', lastTime));
  await waitForStatus(serve.url, (status) => status.newest === lastTime);

  // What is left comes out once each, and none of it was answered before.
  const beforeDrain = await poolStatus(serve.url);
  const drained = await drain(serve.url, log, 16);
  const end = await poolStatus(serve.url);
  t.is(drained, beforeDrain.available);
  t.is(end.available, 0);
  t.is(end.served_total, beforeDrain.served_total + drained);

  t.deepEqual(log.duplicates(), [], 'no value was answered twice');
  t.deepEqual(
    log.values.filter((value) => !fed.has(value)),
    [],
    'every answered value was one fed in',
  );
  t.deepEqual([...new Set(log.other)], [], 'no request got anything but a value before the final drain');
  t.true(end.served_total >= log.values.length);
  // Lost to crashes: taken (on disk as served) but never answered, or received and not yet on disk.
  t.log(`${fed.size} fed, ${log.values.length} answered, served_total ${end.served_total}, ${fed.size - log.values.length} lost`);
  // Each crash may lose the commit in flight (at most one value per load loop), what the front held,
  // and the arrivals still in transit; anything beyond is a value lost that no crash explains.
  const lossBound = rounds * (loops + maximumHeld + arrivalsPerRound);
  t.true(fed.size - log.values.length <= lossBound, `${fed.size - log.values.length} values lost in ${rounds} crashes, more than ${lossBound}`);
  process.kill(-(serve.process.child.pid ?? 0), 'SIGTERM');
  t.is(await serve.process.exited, 0);
});

test('replayed chunks never bring served values back, before or after a restart', async (t) => {
  const dir = await tempDir(t);
  const double = await diodeDouble(t);
  const config = await writeConfig(dir, {
    server: { listen: await freeListen(), receive_command: double.receiveCommand('auto-stream-recv'), pool_file: join(dir, 'pool.bin') },
  });
  const log = new ServedLog();
  const batch = freshValues(50);
  // The very lines the diode carried, byte for byte, each time they come again.
  const lines = valueLines(batch);

  let serve = await startPoolServe(t, config, double);
  double.enqueue(lines);
  await waitForStatus(serve.url, (status) => status.available === 50);
  for (let index = 0; index < 20; index++) t.true(log.record(await fetchValue(serve.url, formats[index % formats.length]!)));
  // LIFO: the newest 20.
  t.deepEqual(log.values, batch.slice(30).reverse());

  // The very same lines again, then one new value: once that one is in, the whole chunk was read.
  const marker1 = freshValues(1);
  double.enqueue(lines + valueLines(marker1));
  let status = await waitForStatus(serve.url, (current) => current.available !== 30);
  t.like(status, { available: 31, served_total: 20 });

  // The link replays an emission: both copies arrive, and still nothing served comes back.
  const replayed = freshValues(10);
  const replayedLines = valueLines(replayed);
  double.control({ replay: true });
  double.enqueue(lines + replayedLines);
  status = await waitForStatus(serve.url, (current) => current.available !== 31);
  t.like(status, { available: 41, served_total: 20 });
  t.is(double.queued().length, 0);

  // Across a restart the served history comes from the pool files.
  process.kill(-(serve.process.child.pid ?? 0), 'SIGTERM');
  t.is(await serve.process.exited, 0);
  serve = await startPoolServe(t, config, double);
  t.like(await poolStatus(serve.url), { available: 41, served_total: 20 });
  for (let index = 0; index < 5; index++) t.true(log.record(await fetchValue(serve.url, 'hex')));
  const marker2 = freshValues(1);
  double.enqueue(lines + replayedLines + valueLines(marker1) + valueLines(marker2));
  status = await waitForStatus(serve.url, (current) => current.available !== 36);
  t.like(status, { available: 37, served_total: 25 });

  const drained = await drain(serve.url, log);
  t.is(drained, 37);
  t.like(await poolStatus(serve.url), { available: 0, served_total: 62 });
  t.deepEqual(log.duplicates(), []);
  t.deepEqual([...log.values].sort(), [...batch, ...replayed, ...marker1, ...marker2].sort());
  t.notRegex(serve.process.stderr(), /skipped a damaged line/);
  process.kill(-(serve.process.child.pid ?? 0), 'SIGTERM');
  t.is(await serve.process.exited, 0);
});
