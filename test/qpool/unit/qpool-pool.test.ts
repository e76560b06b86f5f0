import test from 'ava';
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { ManualClock } from '../../../src/actor/clock.js';
import { loggerFrom, type LogRecord } from '../../../src/log/record.js';
import { PoolService, type PoolDurability } from '../../../actors/qpool/pool/logic.js';
import { ValuePool } from '../../../actors/qpool/pool/memory.js';
import { decodeJournalRecord, encodeJournalRecord, type JournalRecord, type SnapshotContent } from '../../../actors/qpool/pool/codec.js';
import type { TakeBatch } from '../../../actors/qpool/pool/protocol.js';
import type { ValueRecord } from '../../../actors/qpool/values/record.js';
import { restorePool } from '../../../actors/qpool/pool/restore.js';
import { entryKey, entryTimestamp, ValueBatchBuilder } from '../../../actors/qpool/values/batch.js';
import { recordsOf } from '../../helpers/qpool.js';

/** A batch of fresh values, collected at the given times. */
function entries(...timestamps: number[]): Buffer {
  const builder = new ValueBatchBuilder();
  for (const timestamp of timestamps) builder.push(randomBytes(128), timestamp, 'legacy');
  return builder.finish();
}

function record(timestamp = '2026-11-22T10:00:00.000Z'): ValueRecord {
  return { value: randomBytes(128).toString('hex'), timestamp, source: 'keyed' };
}

function batchOf(records: readonly ValueRecord[]): Buffer {
  const builder = new ValueBatchBuilder();
  for (const { value, timestamp, source } of records) builder.pushHex(value, Date.parse(timestamp), source);
  return builder.finish();
}

/** Takes the newest value of `pool` as a one-entry batch; undefined when empty. */
function takeOne(pool: ValuePool): Buffer | undefined {
  const out = Buffer.alloc(137);
  return pool.takeNewest(out, 0) ? out : undefined;
}

test('the pool is a bounded LIFO that drops the oldest at capacity and refuses values it has seen', (t) => {
  const pool = new ValuePool(3, 10);
  const batch = entries(1, 2, 3, 4);
  for (const index of [0, 1, 2]) t.is(pool.add(batch, index), 'added');
  t.is(pool.add(batch, 3), 'added-evicting');
  t.deepEqual(pool.ageRange(), { oldest: 2, newest: 4 });
  t.is(pool.add(batch, 2), 'duplicate');
  t.deepEqual(takeOne(pool), batch.subarray(3 * 137, 4 * 137));
  pool.markServed(entryKey(batch, 3));
  t.is(pool.add(batch, 3), 'duplicate', 'a served value never comes back');
  t.deepEqual(takeOne(pool), batch.subarray(2 * 137, 3 * 137));
  t.deepEqual(takeOne(pool), batch.subarray(137, 2 * 137));
  t.is(takeOne(pool), undefined);
});

test('the served history forgets the oldest beyond its size', (t) => {
  const pool = new ValuePool(10, 2);
  const batch = entries(0, 0, 0);
  for (const index of [0, 1, 2]) pool.markServed(entryKey(batch, index));
  t.deepEqual(pool.servedKeys(), [entryKey(batch, 1), entryKey(batch, 2)]);
  t.is(pool.add(batch, 0), 'added');
  t.is(pool.add(batch, 2), 'duplicate');
});

class FakeDisk implements PoolDurability {
  records: JournalRecord[] = [];
  rewrites: SnapshotContent[] = [];
  failing = false;
  appends = 0;
  get journalBytes(): number {
    return this.records.length;
  }
  append(journalRecord: JournalRecord): Promise<void> {
    this.appends++;
    if (this.failing) return Promise.reject(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
    this.records.push(journalRecord);
    return Promise.resolve();
  }
  rewrite(content: SnapshotContent): Promise<void> {
    if (this.failing) return Promise.reject(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
    this.rewrites.push(content);
    this.records = [];
    return Promise.resolve();
  }
  compactions: { content: SnapshotContent; finish: (error?: Error) => void }[] = [];
  /** The snapshot is "written" when the test calls `finish`. */
  compact(content: SnapshotContent): Promise<{ written: Promise<void> }> {
    this.records = [];
    let finish: (error?: Error) => void = () => {};
    const written = new Promise<void>((resolve, reject) => {
      finish = (error) => (error === undefined ? resolve() : reject(error));
    });
    this.compactions.push({ content, finish });
    return Promise.resolve({ written });
  }
}

/** With FakeDisk, the journal's "bytes" are its records: `compactAt` records start a compaction. */
function service(disk: FakeDisk | undefined, capacity = 100, compactAt = 1000) {
  const logs: LogRecord[] = [];
  const clock = new ManualClock(Date.parse('2026-11-22T12:00:00Z'));
  const pool = new PoolService(new ValuePool(capacity, 1000), {
    durability: disk,
    options: { rewriteAtJournalBytes: compactAt, retryAfterFailureMs: 1000 },
    clock,
    log: loggerFrom('pool', (entry) => logs.push(entry)),
  });
  return { pool, logs, clock };
}

/** What each request of a take got: its value, `empty`, or `unavailable`. */
function values(batch: TakeBatch, requests: number): string[] {
  if (batch.failure !== undefined) return Array.from({ length: requests }, () => 'unavailable');
  const taken = recordsOf(batch.values).map((value) => value.value);
  return Array.from({ length: requests }, (_, index) => taken[index] ?? 'empty');
}

test('takes in one turn share one commit, newest first, with the count left after each', async (t) => {
  const disk = new FakeDisk();
  const { pool } = service(disk);
  const records = [record(), record(), record()];
  pool.ingest(batchOf(records));
  const answers = await Promise.all([pool.take(1), pool.take(1), pool.take(2)]);
  t.deepEqual(
    answers.map((answer) => answer.available),
    [2, 1, 0],
    'the count left after the last value of each take',
  );
  t.deepEqual(
    [...values(answers[0], 1), ...values(answers[1], 1), ...values(answers[2], 2)],
    [records[2]!.value, records[1]!.value, records[0]!.value, 'empty'],
  );
  const served = disk.records.filter((journalRecord) => journalRecord.kind === 'served');
  t.is(served.length, 1, 'one journal record for the whole batch');
  t.deepEqual(pool.status().served_total, 3);
});

test('a failed commit answers unavailable, consumes nothing, and serving resumes once the disk is back', async (t) => {
  const disk = new FakeDisk();
  const { pool, logs, clock } = service(disk);
  const records = [record(), record()];
  pool.ingest(batchOf(records));
  await pool.take(0);
  disk.failing = true;
  const failed = await pool.take(1);
  t.is(failed.failure, 'pool could not be committed to disk');
  t.is(failed.values.length, 0);
  t.is(pool.status().available, 2);
  t.is(pool.status().served_total, 0);
  t.true(logs.some((entry) => entry.level === 'error' && entry.message === 'pool could not be committed to disk'));
  // Within the retry pause nothing touches the disk.
  const appends = disk.appends;
  t.deepEqual(values(await pool.take(1), 1), ['unavailable']);
  t.is(disk.appends, appends);
  disk.failing = false;
  clock.advance(1000);
  t.deepEqual(values(await pool.take(1), 1), [records[1]!.value]);
  t.is(disk.rewrites.at(-1)?.entryCount, 2, 'the files were rewritten before the next commit');
  t.true(logs.some((entry) => entry.message === 'the pool files are written again; serving resumes'));
});

test('status has no ages when empty, and reports them when not', async (t) => {
  const { pool } = service(undefined);
  t.deepEqual(pool.status(), { available: 0, capacity: 100, served_total: 0 });
  pool.ingest(batchOf([record('2026-11-22T09:00:00.000Z'), record('2026-11-22T11:00:00.000Z')]));
  const status = pool.status();
  t.is(status.oldest, '2026-11-22T09:00:00.000Z');
  t.is(status.newest, '2026-11-22T11:00:00.000Z');
  t.is(status.last_ingest, '2026-11-22T12:00:00.000Z');
  await pool.take(2);
  t.is(pool.status().served_total, 2);
});

test('restoring replays served keys wherever their arrival was recorded', (t) => {
  const batch = entries(1, 2, 3);
  const entry = (index: number) => batch.subarray(index * 137, (index + 1) * 137);
  const key = (index: number) => entryKey(batch, index);
  const restored = restorePool(
    { servedTotal: 5, lastIngest: 10, entryCount: 1, entries: [entry(0)], servedKeys: [] },
    [
      { kind: 'served', servedTotal: 6, keys: [key(2)] },
      { kind: 'ingest', lastIngest: 20, entries: [batch.subarray(137)] },
      { kind: 'served', servedTotal: 7, keys: [key(0)] },
    ],
    100,
    100,
  );
  t.deepEqual(restored.pool.toBatch(), entry(1));
  t.is(restored.servedTotal, 7);
  t.is(restored.lastIngest, 20);
  t.is(restored.pool.add(batch, 2), 'duplicate');
});

test('a give-back is journaled as its own record: it reads back whole, and a value served, given back and served again stays out', (t) => {
  const batch = entries(1, 2, 3);
  const key = (index: number) => entryKey(batch, index);
  const returned: JournalRecord = { kind: 'returned', servedTotal: 4, entries: [batch.subarray(137)] };
  t.deepEqual(decodeJournalRecord(Buffer.concat(encodeJournalRecord(returned))), returned);
  const restored = restorePool(
    { servedTotal: 0, lastIngest: 10, entryCount: 3, entries: [batch], servedKeys: [] },
    [{ kind: 'served', servedTotal: 5, keys: [key(2), key(1), key(0)] }, returned, { kind: 'served', servedTotal: 5, keys: [key(2)] }],
    100,
    100,
  );
  t.deepEqual(restored.pool.toBatch(), batch.subarray(137, 2 * 137), 'given back and not served again');
  t.is(restored.servedTotal, 5, 'the count of the last record, a give-back taken off');
  t.is(restored.pool.add(batch, 2), 'duplicate');
  t.is(restored.pool.add(batch, 0), 'duplicate');
});

test('an arrival journals only the values it added', async (t) => {
  const disk = new FakeDisk();
  const { pool } = service(disk);
  const first = [record(), record()];
  pool.ingest(batchOf(first));
  await pool.settle();
  const fresh = record();
  t.deepEqual(pool.ingest(batchOf([first[1]!, fresh])), { added: 1, duplicates: 1, evicted: 0 });
  await pool.settle();
  const ingests = disk.records.flatMap((journalRecord) => (journalRecord.kind === 'ingest' ? [recordsOf(Buffer.concat(journalRecord.entries))] : []));
  t.deepEqual(ingests, [first, [fresh]]);
  t.is(pool.status().available, 3);
});

test('a long journal is compacted while commits go on; a compaction that fails makes the next commit rewrite first', async (t) => {
  const disk = new FakeDisk();
  const { pool, logs } = service(disk, 100, 2);
  const records = Array.from({ length: 6 }, () => record());
  pool.ingest(batchOf(records));
  await pool.take(1);
  await pool.take(1);
  await new Promise((resolve) => setImmediate(resolve));
  t.is(disk.compactions.length, 1, 'the journal passed its bound');
  t.is(disk.compactions[0]?.content.entryCount, 4);
  // The snapshot is still being written: takes commit to the new journal meanwhile.
  t.deepEqual(values(await pool.take(1), 1), [records[3]!.value]);
  t.is(disk.compactions.length, 1, 'one compaction at a time');
  disk.compactions[0]?.finish(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
  await new Promise((resolve) => setImmediate(resolve));
  t.true(logs.some((entry) => entry.message === 'pool could not be committed to disk'));
  const rewrites = disk.rewrites.length;
  t.deepEqual(values(await pool.take(1), 1), [records[2]!.value]);
  t.is(disk.rewrites.length, rewrites + 1, 'rewritten before the commit');
  t.is(disk.rewrites.at(-1)?.entryCount, 3);
});

test('readyToStore: at once without a disk; after a failed write it tries the files itself, with no request needed', async (t) => {
  t.true(await service(undefined).pool.readyToStore());
  const disk = new FakeDisk();
  const { pool, clock } = service(disk);
  t.true(await pool.readyToStore());
  pool.ingest(batchOf([record()]));
  disk.failing = true;
  t.is((await pool.take(1)).failure, 'pool could not be committed to disk');
  t.false(await pool.readyToStore());
  disk.failing = false;
  // Within the retry pause the disk is not tried again.
  const rewrites = disk.rewrites.length;
  t.false(await pool.readyToStore());
  t.is(disk.rewrites.length, rewrites);
  clock.advance(1000);
  t.true(await pool.readyToStore());
  t.is(disk.rewrites.length, rewrites + 1, 'the files were rewritten without a take');
  t.is(pool.status().available, 1);
});

// Oldest and newest by collection time, whatever the order values arrived in, kept
// through adds (evicting at capacity), takes, values put back and keys removed.
test('ageRange is the earliest and latest collection time in the pool, in any arrival order', (t) => {
  const operation = fc.oneof(
    fc.record({ add: fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 6 }) }),
    fc.record({ take: fc.integer({ min: 1, max: 4 }) }),
    fc.record({ putBack: fc.constant(true) }),
  );
  t.notThrows(() =>
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.array(operation, { maxLength: 40 }), (capacity, operations) => {
        const pool = new ValuePool(capacity, 1000);
        let lastTaken: Buffer | undefined;
        for (const step of operations) {
          if ('add' in step) pool.addAll(entries(...step.add.map((minute) => minute * 60_000)));
          else if ('take' in step) for (let count = 0; count < step.take; count++) lastTaken = takeOne(pool) ?? lastTaken;
          else if (lastTaken !== undefined && !pool.hasServed(entryKey(lastTaken, 0))) {
            pool.putBack(lastTaken, 1);
            lastTaken = undefined;
          }
          const all = pool.toBatch();
          const times = Array.from({ length: all.length / 137 }, (_, index) => entryTimestamp(all, index));
          const expected = times.length === 0 ? undefined : { oldest: Math.min(...times), newest: Math.max(...times) };
          if (JSON.stringify(pool.ageRange()) !== JSON.stringify(expected)) return false;
        }
        return true;
      }),
      { numRuns: 500 },
    ),
  );
});
