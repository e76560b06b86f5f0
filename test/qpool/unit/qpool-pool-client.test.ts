// A front's pool client against a real memory-only PoolService over a real MessagePort link: under
// demand it holds values and answers from them without a call, reports what it served, gives back
// what it still holds once requests pause, and keeps a give-back the pool did not receive.
import { MessageChannel } from 'node:worker_threads';
import test, { type ExecutionContext } from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { exposeApi, PeerLink } from '../../../src/actor/rpc.js';
import { ManualClock } from '../../../src/actor/clock.js';
import { loggerFrom } from '../../../src/log/record.js';
import { OutpostError } from '../../../src/errors.js';
import { PoolClient, type TakenValue, type TakeResult } from '../../../actors/qpool/site/pool-client.js';
import { PoolService } from '../../../actors/qpool/pool/logic.js';
import { ValuePool } from '../../../actors/qpool/pool/memory.js';
import type { PoolApi } from '../../../actors/qpool/pool/protocol.js';
import { ValueBatchBuilder } from '../../../actors/qpool/values/batch.js';
import { poolApi } from '../../../actors/qpool/pool/api.js';

function client(t: ExecutionContext, values: number) {
  const service = new PoolService(new ValuePool(1000, 1000), {
    options: { rewriteAtJournalBytes: 1e9, retryAfterFailureMs: 1000 },
    clock: new ManualClock(0),
    log: loggerFrom('pool', () => {}),
  });
  const builder = new ValueBatchBuilder();
  for (let index = 0; index < values; index++) builder.push(randomBytes(128), index, 'keyed');
  service.ingest(builder.finish());
  const calls = { take: 0, report: 0, returned: 0, refuseReports: 0 };
  // The pool actor's own API, with counters, and a report refused while `refuseReports` lasts.
  let changes = 0;
  const real = poolApi(service, () => ++changes);
  const api: PoolApi = {
    ...real,
    take: (request) => {
      calls.take++;
      return real.take(request);
    },
    report: (holding, returned) => {
      calls.report++;
      if (calls.refuseReports > 0) {
        calls.refuseReports--;
        return Promise.reject(new OutpostError('ERR_ACTOR_UNAVAILABLE', 'the pool restarts'));
      }
      if (returned !== undefined) calls.returned += returned.byteLength / 137;
      return real.report(holding, returned);
    },
  };
  const { port1, port2 } = new MessageChannel();
  exposeApi(api, port2);
  const link = new PeerLink<PoolApi>('pool');
  link.attach(port1);
  t.teardown(() => {
    link.detach();
    port2.close();
  });
  const pool = new PoolClient(link, { name: 'recv/http-front', log: loggerFrom('front', () => {}), subscribe: () => () => {} });
  return { pool, service, calls };
}

/** `count` requests in one turn; their values' hex. */
async function requests(pool: PoolClient, count: number): Promise<string[]> {
  const results: (TakenValue | Promise<TakeResult>)[] = Array.from({ length: count }, () => pool.take());
  return (await Promise.all(results.map((result) => Promise.resolve(result)))).map(hexOf);
}

/** Waits for `condition`, checking every 10 ms (the client's timers run every 50 ms), at most 5 s. */
async function until(condition: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 5000; !condition(); await sleep(10)) {
    if (Date.now() > deadline) throw new Error('the condition never held');
  }
}

/** The hex of a value a request got, or why it got none. */
function hexOf(result: TakeResult): string {
  return result.type === 'value' ? result.values.toString('hex', result.index * 137, result.index * 137 + 128) : result.type;
}

test('under demand the client answers from held values without a call, reports them, and gives the rest back after a pause', async (t) => {
  const { pool, service, calls } = client(t, 100);
  const served = [...(await requests(pool, 10)), ...(await requests(pool, 10))];
  t.is(calls.take, 2, 'two turns, two takes; the second also brought values to hold');
  t.is(service.status().available, 80, 'held values still count as available');
  const held = pool.take();
  if (held instanceof Promise) return t.fail('a held value answers at once');
  served.push(hexOf(held), ...(await requests(pool, 4)));
  t.is(calls.take, 2, 'no take while held values last');
  t.deepEqual(await pool.status(), service.status());
  t.deepEqual([service.status().available, service.status().served_total], [75, 25], 'asking the status reports what was served');
  await until(() => calls.returned > 0);
  t.is(calls.returned, 35, 'what was still held went back after the pause');
  t.deepEqual([service.status().available, service.status().served_total], [75, 25]);
  served.push(...(await requests(pool, 75)));
  t.is(new Set(served).size, 100, 'every value once');
  t.deepEqual(await requests(pool, 1), ['empty']);
});

test('a give-back the pool did not receive is held again and given back at the next pause', async (t) => {
  const { pool, service, calls } = client(t, 100);
  await requests(pool, 10);
  await requests(pool, 10);
  calls.refuseReports = 1;
  await until(() => calls.report > 0);
  t.is(calls.returned, 0, 'the first give-back was refused');
  t.is(service.status().available, 80);
  await until(() => calls.returned > 0);
  t.is(calls.returned, 40, 'all of it, at the next pause');
  t.deepEqual([service.status().available, service.status().served_total], [80, 20]);
  // The pool counted the give-back before its answer reached the client: a status asked now goes
  // behind it on the link, so the answer is in before the link closes (else the client would hold
  // the values again and retry a pool that is gone).
  t.deepEqual(await pool.status(), service.status());
});
