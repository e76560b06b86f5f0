// The pool file and its journal under damage: every byte of either file flipped,
// and either file cut at every length, is refused with DecryptionError (what serve reports as "the
// pool could not be decrypted ... the files are untouched"), never another error and never a
// different pool; loading writes nothing.
import assert from 'node:assert/strict';
import test, { type ExecutionContext } from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { PoolFiles } from '../../../actors/qpool/pool/pool-files.js';
import { ValuePool } from '../../../actors/qpool/pool/memory.js';
import { restorePool } from '../../../actors/qpool/pool/restore.js';
import { entryBytes, entryKey, ValueBatchBuilder } from '../../../actors/qpool/values/batch.js';
import { headerBytes } from '../../../actors/qpool/sealed/sealed.js';
import { DecryptionError, type DeriveMasterKey } from '../../../actors/qpool/sealed/sealed.js';
import { journalCountBytes } from '../../../actors/qpool/sealed/journal-count.js';
import { checkAsyncProperty } from '../../helpers/fuzz.js';
import { tempDir } from '../../helpers/qpool.js';

/** The passphrase derivation is not what is tested here: a fast stand-in, the same on every load. */
const derive: DeriveMasterKey = (passphrase, kdf) => Promise.resolve(createHash('sha256').update(passphrase).update(kdf.salt).digest());
const passphrase = 'fuzz-pool-files';

function freshValues(count: number): Buffer {
  const builder = new ValueBatchBuilder();
  for (let index = 0; index < count; index++) builder.push(randomBytes(128), 1_700_000_000_000 + index, index % 2 === 0 ? 'legacy' : 'keyed');
  return builder.finish();
}

interface PoolState {
  values: Buffer;
  servedKeys: number[];
  servedTotal: number;
}

/** Pool files as serve leaves them after a clean stop: a snapshot of 2 values, then a journal of an arrival and two takes. */
async function writePool(t: ExecutionContext): Promise<{ snapshot: Buffer; journal: Buffer; state: PoolState }> {
  const dir = await tempDir(t, 'fuzz-pool-');
  const path = join(dir, 'pool');
  const { files } = await PoolFiles.load(path, passphrase, derive);
  const pool = new ValuePool(100, 100);
  pool.addAll(freshValues(2));
  await files.rewrite({ servedTotal: 0, lastIngest: 1, entryCount: pool.size, entries: pool.batches(), servedKeys: [] });
  const arrived = freshValues(1);
  pool.addAll(arrived);
  await files.append({ kind: 'ingest', lastIngest: 2, entries: [arrived] });
  let servedTotal = 0;
  for (const count of [1, 1]) {
    const taken = Buffer.alloc(count * entryBytes);
    for (let index = 0; index < count; index++) pool.takeNewest(taken, index);
    const keys = Array.from({ length: count }, (_, index) => entryKey(taken, index));
    servedTotal += count;
    await files.append({ kind: 'served', servedTotal, keys });
    for (const key of keys) pool.markServed(key);
  }
  await files.close();
  return {
    snapshot: await readFile(path),
    journal: await readFile(`${path}.hot`),
    state: { values: pool.toBatch(), servedKeys: pool.servedKeys(), servedTotal },
  };
}

/**
 * Loads the pool from these bytes in a folder of their own: the pool it gives, or the refusal.
 * Checks that loading wrote nothing (same files, same bytes).
 */
async function load(dir: string, snapshot: Buffer, journal: Buffer): Promise<PoolState | DecryptionError> {
  const path = join(dir, 'pool');
  await writeFile(path, snapshot, { mode: 0o600 });
  await writeFile(`${path}.hot`, journal, { mode: 0o600 });
  let result: PoolState | DecryptionError;
  try {
    const { loaded } = await PoolFiles.load(path, passphrase, derive);
    const restored = restorePool(loaded.snapshot, loaded.journal, 100, 100);
    result = { values: restored.pool.toBatch(), servedKeys: restored.pool.servedKeys(), servedTotal: restored.servedTotal };
  } catch (error) {
    if (!(error instanceof DecryptionError)) throw error;
    result = error;
  }
  assert.deepEqual((await readdir(dir)).sort(), ['pool', 'pool.hot']);
  assert.ok((await readFile(path)).equals(snapshot), 'the pool file was left as it was');
  assert.ok((await readFile(`${path}.hot`)).equals(journal), 'the journal was left as it was');
  return result;
}

/**
 * The journal's record count area: two slots, each with its MAC, the larger valid one counting. A
 * changed slot is taken for a torn write of it (what a crash while updating it leaves) and the
 * other slot counts; the records themselves are still all authenticated.
 */
const countArea = { start: headerBytes, end: headerBytes + journalCountBytes };

test('the files as written load back to the same pool', async (t) => {
  const { snapshot, journal, state } = await writePool(t);
  t.deepEqual(await load(await tempDir(t, 'fuzz-pool-load-'), snapshot, journal), state);
});

test('every byte of the pool file or the journal flipped: refused with DecryptionError, files untouched', async (t) => {
  const { snapshot, journal, state } = await writePool(t);
  const dir = await tempDir(t, 'fuzz-pool-flip-');
  // Each position in both files, each with a mask fast-check picks (any of the 255 that change it);
  // one run is every position once (a load takes 10-15 ms on this machine).
  const positions = [
    ...Array.from({ length: snapshot.length }, (_, at) => ({ file: 'pool' as const, at })),
    ...Array.from({ length: journal.length }, (_, at) => ({ file: 'pool.hot' as const, at })),
  ];
  let refused = 0;
  await checkAsyncProperty(
    t,
    fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 255 }), { minLength: positions.length, maxLength: positions.length }), async (masks) => {
      refused = 0;
      for (const [index, { file, at }] of positions.entries()) {
        const damaged = Buffer.from(file === 'pool' ? snapshot : journal);
        damaged[at]! ^= masks[index]!;
        const result = await load(dir, file === 'pool' ? damaged : snapshot, file === 'pool' ? journal : damaged);
        if (result instanceof DecryptionError) {
          refused++;
          continue;
        }
        // Only the count area may change unnoticed, and then the pool read is the same.
        assert.ok(file === 'pool.hot' && at >= countArea.start && at < countArea.end, `${file} byte ${at} flipped by ${masks[index]} was read`);
        assert.deepEqual(result, state);
      }
    }),
    1,
    { shrink: false },
  );
  t.true(refused >= snapshot.length + journal.length - journalCountBytes, `${refused} refused`);
});

test('the pool file or the journal cut at every length: refused with DecryptionError, files untouched', async (t) => {
  const { snapshot, journal } = await writePool(t);
  const dir = await tempDir(t, 'fuzz-pool-cut-');
  for (let length = 0; length < snapshot.length; length++) {
    const result = await load(dir, snapshot.subarray(0, length), journal);
    t.true(result instanceof DecryptionError, `the pool file cut to ${length} bytes was read`);
  }
  for (let length = 0; length < journal.length; length++) {
    const result = await load(dir, snapshot, journal.subarray(0, length));
    t.true(result instanceof DecryptionError, `the journal cut to ${length} bytes was read`);
  }
});
