// A memory-only qpool serve under concurrent load: its fronts hold values taken from the pool and
// answer from them without asking the pool thread (actors/qpool/pool/holders.ts). Each value is still
// served exactly once, none is lost, and /api/status counts what was served as soon as it is asked.
import { randomBytes } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { defaultMetricsIntervalMs } from '../../../src/metrics/topic.js';
import { DiodeDouble } from '../../helpers/diode-double.js';
import { freeListen, poolStatus, startServe, tempDir, valueLines, waitForStatus, writeConfig, type RunningServe } from '../../helpers/qpool.js';

async function startMemoryServe(t: ExecutionContext, threads: number, values: readonly string[]): Promise<RunningServe> {
  const double = await DiodeDouble.create(t);
  t.teardown(() => double.cleanup());
  const dir = await tempDir(t);
  const config = await writeConfig(dir, { server: { listen: await freeListen(), threads, receive_command: double.receiveCommand('auto-stream-recv') } });
  const serve = await startServe(t, config, double.env);
  double.enqueue(valueLines(values));
  await waitForStatus(serve.url, (status) => status.available === values.length);
  return serve;
}

function freshValues(count: number): string[] {
  return Array.from({ length: count }, () => randomBytes(128).toString('hex'));
}

/** One GET /api/random/hex: the value, or undefined once the front answers "pool empty". */
async function takeValue(url: string): Promise<{ value: string; available: number } | undefined> {
  const response = await fetch(`${url}api/random/hex`);
  const body = await response.text();
  if (response.status === 503 && body === 'pool empty\n') return undefined;
  if (response.status !== 200) throw new Error(`unexpected answer ${response.status} ${body}`);
  return { value: body.trim(), available: Number(response.headers.get('x-quantum-available')) };
}

/** `clients` loops taking values at once, each `perClient` times or until its front has none. */
async function takeConcurrently(url: string, clients: number, perClient = Infinity): Promise<string[]> {
  const loops = Array.from({ length: clients }, async () => {
    const taken: string[] = [];
    while (taken.length < perClient) {
      const answer = await takeValue(url);
      if (answer === undefined) break;
      taken.push(answer.value);
    }
    return taken;
  });
  return (await Promise.all(loops)).flat();
}

/**
 * The values each front thread answered (GET /api/random/hex, 200), from /metrics, once they add up to
 * `total`: each thread pushes its figures every `defaultMetricsIntervalMs`, so they do within three.
 */
async function valuesAnsweredByFront(url: string, total: number): Promise<Map<string, number>> {
  const deadline = Date.now() + 3 * defaultMetricsIntervalMs;
  for (;;) {
    const byFront = new Map<string, number>();
    for (const line of (await (await fetch(`${url}metrics`)).text()).split('\n')) {
      const match = /^outpost_http_requests_total\{([^}]*)\} (\S+)$/.exec(line);
      if (match === null || !match[1]!.includes('route="/api/random/hex"') || !match[1]!.includes('status="200"')) continue;
      const thread = /thread="([^"]+)"/.exec(match[1]!)?.[1] ?? '';
      byFront.set(thread, (byFront.get(thread) ?? 0) + Number(match[2]));
    }
    const counted = [...byFront.values()].reduce((sum, count) => sum + count, 0);
    if (counted === total) return byFront;
    if (Date.now() > deadline) throw new Error(`the fronts counted ${counted} values answered within ${3 * defaultMetricsIntervalMs} ms, not ${total}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('two fronts under 32 concurrent clients serve every value exactly once; what a front still holds goes back to the pool when its requests pause', async (t) => {
  const fed = freshValues(4000);
  const serve = await startMemoryServe(t, 2, fed);
  const served = await takeConcurrently(serve.url, 32);
  // A client's connection may have reached the front that had nothing left while the other still
  // held values; that front gives them back 50-100 ms after its last request, for any front to serve.
  const deadline = Date.now() + 10_000;
  while ((await poolStatus(serve.url)).available > 0 && Date.now() < deadline) {
    const answer = await takeValue(serve.url);
    if (answer === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    else served.push(answer.value);
  }
  t.is(new Set(served).size, served.length, 'no value served twice');
  t.deepEqual([...served].sort(), [...fed].sort(), 'every value served, none lost in a holding');
  const status = await waitForStatus(serve.url, (current) => current.served_total === fed.length, 5000);
  t.is(status.available, 0);
  t.is(await takeValue(serve.url), undefined);
  const byFront = await valuesAnsweredByFront(serve.url, served.length);
  t.deepEqual([...byFront.keys()].sort(), ['recv/http-front#1', 'recv/http-front#2'], 'both front threads answered values');
});

test('one front: right after a burst, /api/status and the next value count exactly what was served', async (t) => {
  const fed = freshValues(3000);
  const serve = await startMemoryServe(t, 1, fed);
  const served = await takeConcurrently(serve.url, 24, 50);
  t.is(served.length, 1200);
  t.is(new Set(served).size, 1200);
  const status = await poolStatus(serve.url);
  t.deepEqual([status.served_total, status.available], [1200, 1800], 'values served from a holding are counted when the status is asked');
  const next = await takeValue(serve.url);
  t.is(next?.available, 1799);
  t.false(served.includes(next?.value ?? ''));
  t.is((await poolStatus(serve.url)).served_total, 1201);
});
