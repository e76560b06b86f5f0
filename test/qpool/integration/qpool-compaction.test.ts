// Compaction of the pool files on a real disk: every state a crash can leave behind while a snapshot
// is written in the background (or rewritten in the foreground) loads back to the same pool.
import test, { type ExecutionContext } from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SnapshotContent } from '../../../actors/qpool/pool/codec.js';
import { ValuePool } from '../../../actors/qpool/pool/memory.js';
import { PoolFiles } from '../../../actors/qpool/pool/pool-files.js';
import { restorePool } from '../../../actors/qpool/pool/restore.js';
import { entryBytes, entryKey, ValueBatchBuilder } from '../../../actors/qpool/values/batch.js';
import { DecryptionError, type DeriveMasterKey } from '../../../actors/qpool/sealed/sealed.js';
import { tempDir } from '../../helpers/qpool.js';

/** The passphrase derivation is not what is tested here: a fast stand-in, the same on every load. */
const derive: DeriveMasterKey = (passphrase, kdf) => Promise.resolve(createHash('sha256').update(passphrase).update(kdf.salt).digest());
const passphrase = 'compaction-test';

function freshValues(count: number): Buffer {
  const builder = new ValueBatchBuilder();
  for (let index = 0; index < count; index++) builder.push(randomBytes(128), 1_700_000_000_000 + index, 'legacy');
  return builder.finish();
}

/** A pool driven the way PoolService drives it, its files written as it goes. */
class DrivenPool {
  readonly pool = new ValuePool(100, 100);
  servedTotal = 0;

  constructor(readonly files: PoolFiles) {}

  content(): SnapshotContent {
    return { servedTotal: this.servedTotal, lastIngest: 1, entryCount: this.pool.size, entries: this.pool.batches(), servedKeys: this.pool.servedKeys() };
  }

  async ingest(batch: Buffer): Promise<void> {
    this.pool.addAll(batch);
    await this.files.append({ kind: 'ingest', lastIngest: 2, entries: [batch] });
  }

  async take(count: number): Promise<void> {
    const taken = Buffer.alloc(count * entryBytes);
    for (let index = 0; index < count; index++) this.pool.takeNewest(taken, index);
    const keys = Array.from({ length: count }, (_, index) => entryKey(taken, index));
    this.servedTotal += count;
    await this.files.append({ kind: 'served', servedTotal: this.servedTotal, keys });
    for (const key of keys) this.pool.markServed(key);
  }
}

type Files = Partial<Record<'pool' | 'pool.hot' | 'pool.hot.next', Buffer>>;

async function capture(dir: string, names: (keyof Files)[]): Promise<Files> {
  return Object.fromEntries(await Promise.all(names.map(async (name) => [name, await readFile(join(dir, name))]))) as Files;
}

/** Loads `files` from a folder of their own and rebuilds the pool as serve does at start. */
async function loadState(t: ExecutionContext, files: Files) {
  const dir = await tempDir(t, 'qpool-compaction-');
  for (const [name, bytes] of Object.entries(files)) await writeFile(join(dir, name), bytes, { mode: 0o600 });
  const { files: opened, loaded } = await PoolFiles.load(join(dir, 'pool'), passphrase, derive);
  await opened.close();
  const restored = restorePool(loaded.snapshot, loaded.journal, 100, 100);
  return { values: restored.pool.toBatch(), servedTotal: restored.servedTotal };
}

/** New pool files in a folder of their own, holding `count` fresh values, as serve leaves them at start. */
async function newPool(t: ExecutionContext, count: number): Promise<{ dir: string; files: PoolFiles; driven: DrivenPool }> {
  const dir = await tempDir(t, 'qpool-compaction-');
  const { files } = await PoolFiles.load(join(dir, 'pool'), passphrase, derive);
  t.teardown(() => files.close());
  const driven = new DrivenPool(files);
  driven.pool.addAll(freshValues(count));
  await files.rewrite(driven.content());
  return { dir, files, driven };
}

test('every state a compaction or a rewrite can crash in loads back to the same pool', async (t) => {
  const { dir, files, driven } = await newPool(t, 10);
  await driven.take(2);
  await driven.ingest(freshValues(5));
  const before = await capture(dir, ['pool', 'pool.hot']);

  const { written } = await files.compact(driven.content());
  await driven.take(1);
  const nextJournal = (await capture(dir, ['pool.hot.next']))['pool.hot.next'];
  await written;
  const after = await capture(dir, ['pool', 'pool.hot']);
  t.true(after['pool.hot']?.equals(nextJournal ?? Buffer.alloc(0)), 'the new journal was renamed over the old one');
  const expected = { values: driven.pool.toBatch(), servedTotal: 3 };
  t.is(expected.values.length / entryBytes, 12);

  t.deepEqual(await loadState(t, after), expected, 'compaction finished');
  t.deepEqual(await loadState(t, { ...before, 'pool.hot.next': nextJournal }), expected, 'crashed while the snapshot was being written');
  t.deepEqual(await loadState(t, { pool: after.pool, 'pool.hot': before['pool.hot'], 'pool.hot.next': nextJournal }), expected, 'crashed before the rename');

  // A foreground rewrite: once the snapshot is in place, the old journals are not replayed.
  await files.rewrite(driven.content());
  const rewritten = await capture(dir, ['pool']);
  t.deepEqual(await loadState(t, { pool: rewritten.pool, 'pool.hot': after['pool.hot'] }), expected, 'crashed before the new journal existed');
  t.deepEqual(await loadState(t, { pool: rewritten.pool, 'pool.hot': before['pool.hot'], 'pool.hot.next': nextJournal }), expected);
});

test('a journal whose name was altered is refused, not skipped', async (t) => {
  const { dir, driven } = await newPool(t, 4);
  await driven.take(1);
  const state = await capture(dir, ['pool', 'pool.hot']);
  const journal = Buffer.from(state['pool.hot'] ?? Buffer.alloc(0));
  // The file salt, which names the journal, is the header's last 32 bytes (before byte 60).
  journal[40] = (journal[40] ?? 0) ^ 0x01;
  await t.throwsAsync(loadState(t, { pool: state.pool, 'pool.hot': journal }), { instanceOf: DecryptionError });
});

test('a journal left from a compaction is removed by the next rewrite', async (t) => {
  const { dir, files, driven } = await newPool(t, 3);
  await copyFile(join(dir, 'pool.hot'), join(dir, 'pool.hot.next'));
  await files.rewrite(driven.content());
  await t.throwsAsync(readFile(join(dir, 'pool.hot.next')), { code: 'ENOENT' });
});
