// Rebuilding the pool from its snapshot and journal. Order barely matters: a value served anywhere in
// the journal is out, wherever its arrival was recorded. Anything uncertain resolves towards losing
// a value, never towards serving one twice.
import type { JournalRecord, SnapshotContent } from './codec.js';
import { ValuePool, valueKey } from './memory.js';

export interface RestoredPool {
  pool: ValuePool;
  servedTotal: number;
  lastIngest: number | undefined;
}

export function restorePool(snapshot: SnapshotContent, journal: readonly JournalRecord[], capacity: number, servedHistory: number): RestoredPool {
  const pool = new ValuePool(capacity, servedHistory);
  for (const key of snapshot.servedKeys) pool.markServed(key);
  for (const entry of snapshot.entries) pool.add(entry);
  let { servedTotal, lastIngest } = snapshot;
  const servedSince = new Set<number>();
  for (const record of journal) {
    if (record.kind === 'served') {
      for (const key of record.keys) {
        servedSince.add(key);
        pool.markServed(key);
      }
      servedTotal = Math.max(servedTotal, record.servedTotal);
    } else {
      for (const entry of record.entries) if (!servedSince.has(valueKey(entry.value))) pool.add(entry);
      lastIngest = Math.max(lastIngest ?? 0, record.lastIngest);
    }
  }
  pool.removeKeys(servedSince);
  return { pool, servedTotal, lastIngest };
}
