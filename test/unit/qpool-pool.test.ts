import test from 'ava';
import { randomBytes } from 'node:crypto';
import { ManualClock } from '../../src/actor/clock.js';
import { loggerFrom, type LogRecord } from '../../src/log/record.js';
import { PoolService, type PoolDurability } from '../../actors/pool/logic.js';
import { ValuePool, valueKey, type PoolEntry } from '../../actors/pool/memory.js';
import type { JournalRecord, SnapshotContent } from '../../actors/pool/codec.js';
import type { TakeResult, ValueRecord } from '../../actors/pool/protocol.js';
import { restorePool } from '../../actors/pool/restore.js';

function entry(timestamp = 0): PoolEntry {
  return { value: randomBytes(128), timestamp, source: 'legacy' };
}

function record(timestamp = '2026-11-22T10:00:00.000Z'): ValueRecord {
  return { value: randomBytes(128).toString('hex'), timestamp, source: 'keyed' };
}

test('the pool is a bounded LIFO that drops the oldest at capacity and refuses values it has seen', (t) => {
  const pool = new ValuePool(3, 10);
  const [a, b, c, d] = [entry(1), entry(2), entry(3), entry(4)];
  for (const value of [a, b, c]) t.is(pool.add(value).outcome, 'added');
  t.deepEqual(pool.add(d), { outcome: 'added', evicted: true });
  t.deepEqual(pool.ageRange(), { oldest: 2, newest: 4 });
  t.is(pool.add(c).outcome, 'duplicate');
  t.deepEqual(pool.takeNewest()?.value, d.value);
  pool.markServed(valueKey(d.value));
  t.is(pool.add(d).outcome, 'duplicate', 'a served value never comes back');
  t.deepEqual(pool.takeNewest()?.value, c.value);
  t.deepEqual(pool.takeNewest()?.value, b.value);
  t.is(pool.takeNewest(), undefined);
});

test('the served history forgets the oldest beyond its size', (t) => {
  const pool = new ValuePool(10, 2);
  const values = [entry(), entry(), entry()];
  for (const value of values) pool.markServed(valueKey(value.value));
  t.deepEqual(pool.servedKeys(), values.slice(1).map((value) => valueKey(value.value)));
  t.is(pool.add(values[0]!).outcome, 'added');
  t.is(pool.add(values[2]!).outcome, 'duplicate');
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
}

function service(disk: FakeDisk | undefined, capacity = 100) {
  const logs: LogRecord[] = [];
  const clock = new ManualClock(Date.parse('2026-11-22T12:00:00Z'));
  const pool = new PoolService(new ValuePool(capacity, 1000), 0, undefined, disk, { rewriteAtJournalBytes: 1000, retryAfterFailureMs: 1000 }, { clock, log: loggerFrom('pool', (entry) => logs.push(entry)) });
  return { pool, logs, clock };
}

function values(results: TakeResult[]): string[] {
  return results.map((result) => (result.type === 'value' ? result.value.record.value : result.type));
}

test('takes in one turn share one commit, newest first, with the count left after each', async (t) => {
  const disk = new FakeDisk();
  const { pool } = service(disk);
  const records = [record(), record(), record()];
  pool.ingest(records);
  const answers = await Promise.all([pool.take(1), pool.take(1), pool.take(2)]);
  t.deepEqual(answers.flat().map((result) => (result.type === 'value' ? result.value.available : -1)), [2, 1, 0, -1]);
  t.deepEqual(values(answers.flat()), [records[2]!.value, records[1]!.value, records[0]!.value, 'empty']);
  const served = disk.records.filter((journalRecord) => journalRecord.kind === 'served');
  t.is(served.length, 1, 'one journal record for the whole batch');
  t.deepEqual(pool.status().served_total, 3);
});

test('a failed commit answers unavailable, consumes nothing, and serving resumes once the disk is back', async (t) => {
  const disk = new FakeDisk();
  const { pool, logs, clock } = service(disk);
  const records = [record(), record()];
  pool.ingest(records);
  await pool.take(0);
  disk.failing = true;
  t.deepEqual(await pool.take(1), [{ type: 'unavailable', message: 'pool could not be committed to disk' }]);
  t.is(pool.status().available, 2);
  t.is(pool.status().served_total, 0);
  t.true(logs.some((entry) => entry.level === 'error' && entry.message === 'pool could not be committed to disk'));
  // Within the retry pause nothing touches the disk.
  const appends = disk.appends;
  t.deepEqual(values(await pool.take(1)), ['unavailable']);
  t.is(disk.appends, appends);
  disk.failing = false;
  clock.advance(1000);
  t.deepEqual(values(await pool.take(1)), [records[1]!.value]);
  t.is(disk.rewrites.at(-1)?.entries.length, 2, 'the files were rewritten before the next commit');
  t.true(logs.some((entry) => entry.message === 'the pool files are written again; serving resumes'));
});

test('status has no ages when empty, and reports them when not', async (t) => {
  const { pool } = service(undefined);
  t.deepEqual(pool.status(), { available: 0, capacity: 100, served_total: 0 });
  pool.ingest([record('2026-11-22T09:00:00.000Z'), record('2026-11-22T11:00:00.000Z')]);
  const status = pool.status();
  t.is(status.oldest, '2026-11-22T09:00:00.000Z');
  t.is(status.newest, '2026-11-22T11:00:00.000Z');
  t.is(status.last_ingest, '2026-11-22T12:00:00.000Z');
  await pool.take(2);
  t.is(pool.status().served_total, 2);
});

test('restoring replays served keys wherever their arrival was recorded', (t) => {
  const [a, b, c] = [entry(1), entry(2), entry(3)];
  const restored = restorePool(
    { servedTotal: 5, lastIngest: 10, entries: [a], servedKeys: [] },
    [
      { kind: 'served', servedTotal: 6, keys: [valueKey(c.value)] },
      { kind: 'ingest', lastIngest: 20, entries: [b, c] },
      { kind: 'served', servedTotal: 7, keys: [valueKey(a.value)] },
    ],
    100,
    100,
  );
  t.deepEqual(restored.pool.entries().map((value) => value.value), [b.value]);
  t.is(restored.servedTotal, 7);
  t.is(restored.lastIngest, 20);
  t.is(restored.pool.add(c).outcome, 'duplicate');
});
