// Rebuilding the pool from its snapshot and journal. Order barely matters: a value served anywhere in
// the journal is out, wherever its arrival was recorded, unless a front gave it back after (a
// `returned` record; the pool journals it before any later take). Anything uncertain resolves
// towards losing a value, never towards serving one twice.
import type { JournalRecord, SnapshotContent } from './codec.js';
import { ValuePool } from './memory.js';
import { entryBytes, entryKey } from '../values/batch.js';

export interface RestoredPool {
  pool: ValuePool;
  servedTotal: number;
  lastIngest: number | undefined;
}

export function restorePool(snapshot: SnapshotContent, journal: readonly JournalRecord[], capacity: number, servedHistory: number): RestoredPool {
  const pool = new ValuePool(capacity, servedHistory);
  for (const key of snapshot.servedKeys) pool.markServed(key);
  for (const batch of snapshot.entries) pool.addAll(batch);
  let { servedTotal, lastIngest } = snapshot;
  const servedSince = new Set<number>();
  for (const record of journal) {
    if (record.kind === 'served') {
      for (const key of record.keys) {
        servedSince.add(key);
        pool.markServed(key);
      }
      servedTotal = record.servedTotal;
    } else if (record.kind === 'returned') {
      for (const batch of record.entries) {
        for (let index = 0; index < batch.length / entryBytes; index++) servedSince.delete(entryKey(batch, index));
        pool.putBack(batch, batch.length / entryBytes);
      }
      // Lower than the record before: the values given back had been counted when they were handed over.
      servedTotal = record.servedTotal;
    } else {
      for (const batch of record.entries) {
        for (let index = 0; index < batch.length / entryBytes; index++) if (!servedSince.has(entryKey(batch, index))) pool.add(batch, index);
      }
      lastIngest = Math.max(lastIngest ?? 0, record.lastIngest);
    }
  }
  pool.removeKeys(servedSince);
  return { pool, servedTotal, lastIngest };
}
