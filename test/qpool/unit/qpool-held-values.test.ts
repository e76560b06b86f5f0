// Values a pool hands its fronts to hold: the pool's accounting (holders.ts, logic.ts)
// and the front's holding (actors/qpool/site/held-values.ts). Each value is still served once, and the
// status counts held values as available until their front reports them served.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { ManualClock } from '../../../src/actor/clock.js';
import { loggerFrom } from '../../../src/log/record.js';
import { HeldValues } from '../../../actors/qpool/site/held-values.js';
import type { JournalRecord } from '../../../actors/qpool/pool/codec.js';
import { PoolService, type PoolServiceSetup } from '../../../actors/qpool/pool/logic.js';
import { restorePool } from '../../../actors/qpool/pool/restore.js';
import { ValuePool } from '../../../actors/qpool/pool/memory.js';
import type { Holding, TakeBatch } from '../../../actors/qpool/pool/protocol.js';
import { entryHex, ValueBatchBuilder } from '../../../actors/qpool/values/batch.js';
import { recordsOf } from '../../helpers/qpool.js';

/** A batch of `count` fresh values, oldest first. */
function fresh(count: number): Buffer {
  const builder = new ValueBatchBuilder();
  for (let index = 0; index < count; index++) builder.push(randomBytes(128), Date.parse('2026-11-25T10:00:00Z') + index, 'keyed');
  return builder.finish();
}

function hexes(batch: Uint8Array | undefined): string[] {
  return batch === undefined ? [] : recordsOf(batch).map((record) => record.value);
}

function memoryPool(capacity = 100, durability?: PoolServiceSetup['durability']) {
  const clock = new ManualClock(Date.parse('2026-11-25T12:00:00Z'));
  return new PoolService(new ValuePool(capacity, 1000), {
    durability,
    options: { rewriteAtJournalBytes: 1e9, retryAfterFailureMs: 1000 },
    clock,
    log: loggerFrom('pool', () => {}),
  });
}

const front = (served: number, start = 'run-1'): Holding => ({ front: 'recv/http-front', start, served });

test('a memory-only pool hands held values over after the waiting requests got theirs, and counts them available until reported', async (t) => {
  const pool = memoryPool();
  const batch = fresh(10);
  const newestFirst = Array.from({ length: 10 }, (_, index) => entryHex(batch, 9 - index));
  pool.ingest(Buffer.from(batch));
  const answer = await pool.take(2, { count: 5, holding: front(0) });
  t.deepEqual(hexes(answer.values), newestFirst.slice(0, 2), 'the waiting requests get the newest');
  t.deepEqual(hexes(answer.held), newestFirst.slice(2, 7), 'then the front holds the next newest');
  t.is(answer.available, 8, 'held values are still available');
  t.deepEqual([pool.status().available, pool.status().served_total], [8, 2]);
  // Another take gets none of the held values.
  t.deepEqual(hexes((await pool.take(3)).values), newestFirst.slice(7, 10));
  pool.report(front(4));
  t.deepEqual([pool.status().available, pool.status().served_total], [1, 9]);
  t.deepEqual(pool.ingest(Buffer.from(batch.subarray(0, 137 * 10))), { added: 0, duplicates: 10, evicted: 0 }, 'held values count as served for deduplication');
});

test('a front started again holds nothing of its last run; a pool with nothing held counts a report as served values', async (t) => {
  const pool = memoryPool();
  pool.ingest(fresh(10));
  await pool.take(0, { count: 6, holding: front(0, 'run-1') });
  t.is(pool.status().available, 10);
  // The front restarted: the six it held are gone with it, never served.
  pool.report(front(0, 'run-2'));
  t.deepEqual([pool.status().available, pool.status().served_total], [4, 0]);
  // The pool restarted (memory only: empty) while a front went on serving what it held.
  const restarted = memoryPool();
  restarted.report(front(3, 'run-2'));
  t.deepEqual([restarted.status().available, restarted.status().served_total], [0, 3]);
});

test('with a pool file, held values are on disk as served before the front gets them; a give-back is journaled before they can be taken again', async (t) => {
  const appended: JournalRecord[] = [];
  const disk = {
    journalBytes: 0,
    append: (record: JournalRecord) => Promise.resolve(void appended.push(record)),
    rewrite: () => Promise.resolve(),
    compact: () => Promise.resolve({ written: Promise.resolve() }),
  };
  const pool = memoryPool(100, disk);
  const batch = fresh(10);
  pool.ingest(Buffer.from(batch));
  const answer = await pool.take(2, { count: 5, holding: front(0) });
  t.is(recordsOf(answer.values).length, 2);
  t.deepEqual(
    hexes(answer.held),
    [7, 6, 5, 4, 3].map((index) => entryHex(batch, index)),
  );
  t.is(answer.available, 8);
  const served = appended.filter((record) => record.kind === 'served');
  t.is(served.length, 1, 'one commit for the requests and the holding');
  t.deepEqual(served[0], { kind: 'served', servedTotal: 7, keys: [9, 8, 7, 6, 5, 4, 3].map((index) => batch.readUIntBE(index * 137, 6)) });
  t.deepEqual([pool.status().available, pool.status().served_total], [8, 2], 'held values are available until reported');
  pool.report(front(1));
  t.deepEqual([pool.status().available, pool.status().served_total], [7, 3]);
  // The front gives back the three it did not serve; the next take gets them, after the give-back is journaled.
  pool.report(front(0), Buffer.from(answer.held!).subarray(2 * 137));
  t.deepEqual([pool.status().available, pool.status().served_total], [7, 3], 'one still held');
  const again = await pool.take(1);
  t.deepEqual(hexes(again.values), [entryHex(batch, 5)]);
  t.deepEqual(
    appended.slice(-2).map((record) => [record.kind, record.kind === 'ingest' ? 0 : record.servedTotal]),
    [
      ['returned', 4],
      ['served', 5],
    ],
  );
  // A crash now: the snapshot it started from and this journal give back the pool the status shows,
  // the value still held (one of five) counted as served: lost, never served twice.
  const restored = restorePool({ servedTotal: 0, lastIngest: undefined, entryCount: 0, entries: [], servedKeys: [] }, appended, 100, 1000);
  t.deepEqual([restored.pool.size, restored.servedTotal], [5, 5]);
  t.deepEqual(
    hexes(restored.pool.toBatch()).reverse(),
    [4, 3, 2, 1, 0].map((index) => entryHex(batch, index)),
  );
});

test('two takes in one turn share the held values in order, each with its own buffers', async (t) => {
  const pool = memoryPool();
  const batch = fresh(6);
  pool.ingest(Buffer.from(batch));
  const [first, second] = await Promise.all([
    pool.take(1, { count: 2, holding: front(0, 'a') }),
    pool.take(1, { count: 4, holding: { front: 'other', start: 'b', served: 0 } }),
  ]);
  t.deepEqual(hexes(first?.values), [entryHex(batch, 5)]);
  t.deepEqual(hexes(second?.values), [entryHex(batch, 4)]);
  t.deepEqual(hexes(first?.held), [entryHex(batch, 3), entryHex(batch, 2)]);
  t.deepEqual(hexes(second?.held), [entryHex(batch, 1), entryHex(batch, 0)], 'the pool ran out: the second gets what was left');
  t.is(pool.status().available, 4);
});

/** A take's answer as the pool would give it. */
function answer(held: Buffer | undefined, available: number): TakeBatch {
  return { values: new Uint8Array(0), available, ...(held === undefined ? {} : { held }) };
}

/** A front's holding once a refill came back with `held` after `arrivals` requests arrived during its round trip. */
function holdingAfter(arrivals: number, held: Buffer, available: number): HeldValues {
  const holding = new HeldValues();
  const mark = holding.mark;
  for (let index = 0; index < arrivals; index++) holding.arrived();
  holding.answered(answer(held, available), mark, 0);
  return holding;
}

test('a front holds nothing for one request at a time, and four times the demand of a round trip under load', (t) => {
  const holding = new HeldValues();
  holding.arrived();
  holding.answered(answer(undefined, 10), holding.mark, 1);
  t.is(holding.wanted, 0, 'one request per round trip holds nothing');
  const mark = holding.mark;
  for (let index = 0; index < 9; index++) holding.arrived();
  holding.answered(answer(undefined, 10), mark, 1);
  t.is(holding.wanted, 40, 'ten requests during a round trip: forty held');
  const burst = holding.mark;
  for (let index = 0; index < 5000; index++) holding.arrived();
  holding.answered(answer(undefined, 10), burst, 0);
  t.is(holding.wanted, 1024, 'at most 1,024');
});

test('held values are served newest first across batches, with the count left, and reported once', (t) => {
  const first = fresh(3);
  const holding = holdingAfter(8, first, 20);
  t.is(holding.wanted, 29, 'three held of a target of 32');
  t.true(holding.low);
  t.false(holding.reportDue);
  const served = [holding.take(), holding.take()];
  t.deepEqual(
    served.map((value) => value && [value.index, value.available]),
    [
      [0, 19],
      [1, 18],
    ],
  );
  t.true(holding.reportDue);
  const report = holding.takeReport();
  t.is(report, 2);
  // One more served while the refill was on its way: the pool's count does not include it yet.
  t.is(holding.take()?.index, 2);
  const second = fresh(2);
  holding.answered(answer(second, 30), holding.mark, 0);
  const next = holding.take();
  t.is(next?.values, second);
  t.deepEqual([next?.index, next?.available], [0, 28]);
  t.is(holding.take()?.index, 1);
  t.is(holding.take(), undefined);
  holding.unreport(report);
  t.is(holding.takeReport(), 5, 'a failed report goes with the next');
});

test('values given back go on top unserved, and held values count toward the capacity', async (t) => {
  const pool = memoryPool(5);
  const batch = fresh(5);
  pool.ingest(Buffer.from(batch));
  const answer = await pool.take(0, { count: 3, holding: front(0) });
  const held = Buffer.from(answer.held ?? new Uint8Array(0));
  t.deepEqual(
    hexes(held),
    [4, 3, 2].map((index) => entryHex(batch, index)),
  );
  // Full: two in the pool and three held. An arrival drops the oldest in the pool.
  t.deepEqual(pool.ingest(fresh(1)), { added: 1, duplicates: 0, evicted: 1 });
  t.is(pool.status().available, 5);
  // The front served one and gives the other two back.
  pool.report(front(1), held.subarray(137));
  t.deepEqual([pool.status().available, pool.status().served_total], [4, 1]);
  t.deepEqual(hexes((await pool.take(2)).values), [entryHex(batch, 3), entryHex(batch, 2)], 'given back on top, newest first');
  t.deepEqual(pool.ingest(Buffer.from(held)), { added: 0, duplicates: 3, evicted: 0 }, 'served since, by the front or after the give-back');
});

test('the served history forgets a value given back exactly, and keeps the rest for as long as before', (t) => {
  const pool = new ValuePool(10, 3);
  const batch = fresh(5);
  const key = (index: number) => batch.readUIntBE(index * 137, 6);
  pool.markServed(key(0));
  pool.markServed(key(1));
  pool.putBack(batch, 1);
  t.false(pool.hasServed(key(0)), 'given back: no longer served');
  t.is(pool.size, 1);
  t.deepEqual(pool.servedKeys(), [key(1)]);
  pool.markServed(key(0));
  pool.markServed(key(2));
  // The ring holds 0 (stale), 1, 0: remembering 2 evicts the stale slot, which must not forget 0.
  t.true(pool.hasServed(key(0)));
  t.deepEqual(pool.servedKeys(), [key(1), key(0), key(2)]);
  pool.markServed(key(3));
  t.false(pool.hasServed(key(1)), 'the oldest real entry goes next');
  t.true(pool.hasServed(key(0)));
});

test('a front gives back what it holds after a pause and can keep it again if the pool was away', (t) => {
  const first = fresh(4);
  const holding = holdingAfter(8, first, 20);
  holding.take();
  const returned = holding.giveBack();
  t.deepEqual(
    hexes(returned),
    [1, 2, 3].map((index) => entryHex(first, index)),
  );
  t.deepEqual([holding.size, holding.wanted], [0, 0], 'nothing held, and no demand left to hold for');
  t.is(holding.giveBack(), undefined);
  holding.keep(returned!);
  t.is(holding.size, 3);
  t.is(holding.take()?.values.toString('hex', 0, 128), entryHex(first, 1));
});
