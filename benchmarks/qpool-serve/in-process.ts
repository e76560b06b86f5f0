// What is measured in this process rather than in a serve process: the compaction of a full pool's
// files (kept out of the rounds) and the live data a full pool keeps in the pool thread.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PoolService } from '../../actors/qpool/pool/logic.js';
import { ValuePool } from '../../actors/qpool/pool/memory.js';
import { PoolFiles } from '../../actors/qpool/pool/pool-files.js';
import { ValueBatchBuilder } from '../../actors/qpool/values/batch.js';
import { systemClock } from '../../src/actor/clock.js';
import { capacity, rewriteAtJournalBytes } from './settings.js';

export interface Compaction {
  /** Commits wait this long: the snapshot sealed in memory and the new journal made. */
  pauseMs: number;
  /** The rest, in the background while commits go on: the snapshot written and fsync'd, the journal renamed. */
  backgroundMs: number;
  /** The same snapshot rewritten in the foreground, as at start or after a failed write: commits wait all of it. */
  rewriteMs: number;
}

const quiet = { error() {}, warn() {}, info() {}, debug() {} };

/** The pool actor's service over `pool`, journaling to `files` when given, with serve's compaction threshold. */
function poolService(pool: ValuePool, files: PoolFiles | undefined): PoolService {
  return new PoolService(pool, { durability: files, options: { rewriteAtJournalBytes, retryAfterFailureMs: 1000 }, clock: systemClock, log: quiet });
}

/**
 * What happens once the journal passes 8 MB, on a full pool, in this process on the same disk:
 * the compaction's pause for commits and its background part, and a foreground rewrite for comparison.
 */
export async function fullPoolCompactions(dir: string, round: number, times: number): Promise<Compaction[]> {
  const folder = join(dir, `rewrite-${round}`);
  mkdirSync(folder, { mode: 0o700 });
  const { files } = await PoolFiles.load(join(folder, 'pool'), 'unused', () => Promise.resolve(randomBytes(32)));
  const pool = new ValuePool(capacity, 10_000);
  pool.addAll(freshValues(capacity));
  const service = poolService(pool, files);
  const compactions: Compaction[] = [];
  try {
    await files.rewrite(service.snapshot());
    for (let index = 0; index < times; index++) {
      const startedAt = performance.now();
      const { written } = await files.compact(service.snapshot());
      const pauseMs = performance.now() - startedAt;
      await written;
      const backgroundMs = performance.now() - startedAt - pauseMs;
      const rewriteStartedAt = performance.now();
      await files.rewrite(service.snapshot());
      compactions.push({ pauseMs, backgroundMs, rewriteMs: performance.now() - rewriteStartedAt });
    }
  } finally {
    await files.close();
  }
  return compactions;
}

/**
 * What a full pool keeps alive in the pool thread, garbage collected before and after: 100,000
 * records ingested as the pool actor receives them (PoolService over a ValuePool, memory only),
 * the records themselves let go. The RSS figures of the serve processes add what V8 has not handed back yet.
 */
export function livePoolBytes(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const used = () => {
    gc();
    gc();
    const usage = process.memoryUsage();
    return usage.heapUsed + usage.external;
  };
  const before = used();
  const service = poolService(new ValuePool(capacity, 10_000), undefined);
  for (let batch = 0; batch < capacity / 1000; batch++) service.ingest(freshValues(1000));
  const after = used();
  if (service.status().available !== capacity) throw new Error('the in-process pool did not fill');
  return after - before;
}

/** A value batch of `count` fresh values, as the diode receiver hands one to the pool. */
function freshValues(count: number): Buffer {
  const builder = new ValueBatchBuilder(count);
  const timestamp = Date.now();
  for (let index = 0; index < count; index++) builder.push(randomBytes(128), timestamp, 'legacy');
  return builder.finish();
}
