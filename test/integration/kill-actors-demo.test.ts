// Actors killed, not the process, for the kinds `outpost demo` runs besides the pool
// and the cert domains (kill-actors.test.ts): hostwatch's sampler, qpool's collector, diode sender and
// diode receiver are terminated together at random instants (OUTPOST_TEST_KILL_ACTOR with several
// names, SIGUSR2), three times, while a client watches the hostwatch stream, clients take qpool values
// and clients go through the proxy. Each actor is restarted within its policy, the open stream goes on
// receiving snapshots, values flow again from the collector to the pool, no value is served twice, a
// take made while a value waited for it gets one, no request hangs, and the proxy's route (whose
// threads are not killed) never fails.
import { readFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import test from 'ava';
import { eventually } from '../helpers/fixture-host.js';
import { actorStates, outpostBin } from '../helpers/outpost.js';
import { startProcess } from '../helpers/process.js';
import { takeValue, tempDir, type Take } from '../helpers/qpool.js';

const killed = ['monitor/sampler', 'send/collector', 'send/diode-sender', 'recv/diode-receiver'];
const rounds = 3;
/** Past this a request counts as hung; it bounds a hang, it is not a timing assertion. */
const requestDeadlineMs = 20_000;

/** One client's take, with the instants it was sent and answered. */
interface TimedTake {
  client: number;
  take: Take;
  sentAt: number;
  answeredAt: number;
}

/**
 * Whether a value waited in the pool for `take`: its client's previous take was answered with a
 * value and a count of values left (exact for clients asking one value at a time) larger than the
 * values the other clients got in takes that overlapped the time from that previous take to this one.
 * Values leave the pool only through takes, and the demo's fronts hold none for clients this slow.
 */
function valueWaited(takes: readonly TimedTake[], take: TimedTake): boolean {
  const previous = takes.findLast((other) => other.client === take.client && other.answeredAt <= take.sentAt);
  if (previous?.take.kind !== 'value') return false;
  const takenMeanwhile = takes.filter(
    (other) => other.client !== take.client && other.take.kind === 'value' && other.answeredAt >= previous.sentAt && other.sentAt <= take.answeredAt,
  ).length;
  return previous.take.available > takenMeanwhile;
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  if (!(await eventually(check, timeoutMs, 100))) throw new Error(`not within ${timeoutMs} ms: ${what}`);
}

/** One request through the proxy to the demo's netspeed page, trusting the demo certificate: its status, or the error. */
function throughProxy(port: number, ca: string): Promise<string> {
  return new Promise((resolve) => {
    const call = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        servername: 'netspeed.localhost',
        headers: { host: `netspeed.localhost:${port}` },
        path: '/api/info',
        ca,
        timeout: requestDeadlineMs,
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(String(response.statusCode)));
      },
    );
    call.on('timeout', () => call.destroy(new Error('hung')));
    call.on('error', (error) => resolve(error.message));
    call.end();
  });
}

test('the sampler, collector, diode sender and diode receiver killed at random instants in outpost demo: restarted, the stream goes on, values flow again, none served twice, the proxy never fails', async (t) => {
  const temp = await tempDir(t, 'kill-demo-');
  const demo = startProcess(t, process.execPath, [outpostBin, 'demo'], { TMPDIR: temp, OUTPOST_TEST_KILL_ACTOR: killed.join(',') });
  // A bound on a hang: every role starts, and the machine may be loaded.
  await demo.waitFor(/^ready in \d+ms/m, 90_000);
  const printed = demo.stdout();
  const monitorUrl = /^monitor +(http:\/\/\S+\/)$/m.exec(printed)?.[1];
  const recvUrl = /^recv +(http:\/\/\S+\/)$/m.exec(printed)?.[1];
  const proxy = /^ +curl --cacert (\S+) https:\/\/netspeed\.localhost:(\d+)\//m.exec(printed);
  if (monitorUrl === undefined || recvUrl === undefined || proxy === null) throw new Error(`the demo did not print its URLs:\n${printed}`);
  const ca = await readFile(proxy[1]!, 'utf8');
  const proxyPort = Number(proxy[2]);

  // The dashboard's stream, open through every kill: the times its snapshots arrived.
  const snapshots: number[] = [];
  const stream = new AbortController();
  t.teardown(() => stream.abort());
  const response = await fetch(`${monitorUrl}api/stream`, { signal: stream.signal });
  const reading = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body!) {
        for (const line of decoder.decode(chunk as Uint8Array, { stream: true }).split('\n')) if (line === 'event: snapshot') snapshots.push(Date.now());
      }
    } catch {
      // Aborted at the end of the test.
    }
  })();

  const timedTakes: TimedTake[] = [];
  const proxied: string[] = [];
  let stopLoad = false;
  const load = [
    ...Array.from({ length: 2 }, async (_, client) => {
      while (!stopLoad) {
        const sentAt = performance.now();
        const take = await takeValue(recvUrl, requestDeadlineMs);
        timedTakes.push({ client, take, sentAt, answeredAt: performance.now() });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }),
    // The proxy is not killed here: a steady request every 20 ms shows it undisturbed by the kills
    // beside it, without a tight loop spending a core of the suite's two on TLS requests.
    (async () => {
      while (!stopLoad) {
        proxied.push(await throughProxy(proxyPort, ca));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })(),
  ];

  for (let round = 1; round <= rounds; round++) {
    // Every killed kind is running again before the next signal, so each signal ends each of them.
    await until(async () => {
      const states = await actorStates(temp);
      return killed.every((name) => states.get(name)?.state === 'running');
    }, `every killed actor running before round ${round}`);
    await new Promise((resolve) => setTimeout(resolve, 200 + Math.random() * 1500));
    process.kill(demo.child.pid ?? 0, 'SIGUSR2');
    for (const name of killed) await demo.waitFor(new RegExp(`(SIGUSR2: terminated actor ${name}[^]*){${round}}`), 20_000);
  }
  await until(async () => {
    const states = await actorStates(temp);
    return killed.every((name) => states.get(name)?.state === 'running');
  }, 'every killed actor running after the last round');
  const backAt = Date.now();

  // The stream goes on: two snapshots after the sampler's last restart (the sampler pushes every interval while watched).
  await until(() => Promise.resolve(snapshots.filter((at) => at > backAt).length >= 2), 'two snapshots on the open stream after the last restart');
  // Values flow again from the collector, across the diode, into the pool.
  await until(async () => {
    const status = (await (await fetch(`${recvUrl}api/status`)).json()) as { last_ingest?: string };
    return status.last_ingest !== undefined && Date.parse(status.last_ingest) > backAt;
  }, 'values ingested after the last restart');
  stopLoad = true;
  await Promise.all(load);

  const states = await actorStates(temp);
  for (const name of killed) t.is(states.get(name)?.restarts, rounds, `${name} restarted once per kill`);
  const takes = timedTakes.map(({ take }) => take);
  const values = takes.flatMap((take) => (take.kind === 'value' ? [take.value] : []));
  const refusals = takes.flatMap((take) => (take.kind === 'refused' ? [`${take.status} ${take.body}`] : []));
  const whileValuesWaited = timedTakes.filter((take) => valueWaited(timedTakes, take));
  t.log(
    `${snapshots.length} snapshots; ${takes.length} takes: ${values.length} values, ${refusals.length} refused (${[...new Set(refusals)].join('; ')}), ${whileValuesWaited.length} made while a value waited; ${proxied.length} proxied`,
  );
  t.is(takes.filter((take) => take.kind === 'hung' || take.kind === 'closed').length, 0, 'every take was answered');
  t.true(values.length > 0, 'values were served');
  t.true(whileValuesWaited.length > 0, 'takes were made while values waited in the pool');
  t.deepEqual(
    whileValuesWaited.filter(({ take }) => take.kind !== 'value').map(({ take }) => take),
    [],
    'every take made while a value waited for it got one',
  );
  t.is(new Set(values).size, values.length, 'no value was served twice');
  for (const refusal of refusals) t.regex(refusal, /^503 \{"error":"[^"]+"\}$/);
  t.deepEqual(
    proxied.filter((status) => status !== '200'),
    [],
    'every request through the proxy was answered 200',
  );
  t.true(proxied.length > 0);

  stream.abort();
  await reading;
  demo.child.kill('SIGINT');
  t.is(await demo.exited, 0, demo.stderr());
});
