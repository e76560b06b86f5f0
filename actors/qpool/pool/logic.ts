// The pool's rules: values arrive from the diode receiver, requests take the newest, and with a pool
// file every take is on disk before it is answered. Takes that arrive while a commit is in flight
// wait and go together in the next one (group commit), so one fdatasync answers a whole batch.
// A failed write answers 503 and consumes nothing; the files are rewritten before the next commit.
// A long journal is compacted in the background while commits go on (see pool-files.ts).
// A take may also hand its front values to hold (holders.ts). With a pool file they are on disk as
// served before the front gets them, and counted served from then on: a crash loses what the
// fronts hold, never serves it twice. Values a front gives back are journaled as returned before
// any later take can record them served again.
import type { Clock } from '../../../src/actor/clock.js';
import type { Logger } from '../../../src/log/record.js';
import type { JournalRecord, SnapshotContent } from './codec.js';
import type { ValuePool } from './memory.js';
import { Holders } from './holders.js';
import type { Holding, IngestResult, PoolStatus, TakeBatch } from './protocol.js';
import { entryBytes, entryCount, entryKey } from '../values/batch.js';

/** The durable side of the pool; absent when `pool_file` is not set. */
export interface PoolDurability {
  append(record: JournalRecord): Promise<void>;
  /** Replaces both files; commits wait for it. */
  rewrite(content: SnapshotContent): Promise<void>;
  /** Moves appends to a new journal and writes the snapshot in the background, in `written`. */
  compact(content: SnapshotContent): Promise<{ written: Promise<void> }>;
  readonly journalBytes: number;
}

export interface PoolServiceOptions {
  /** Compact the files once the journal passes this size. */
  rewriteAtJournalBytes: number;
  /** After a failed rewrite, requests fail at once for this long instead of each trying the disk. */
  retryAfterFailureMs: number;
}

/** Values a front would hold, and which front. */
export interface HoldRequest {
  count: number;
  holding: Holding;
}

interface PendingTake {
  count: number;
  hold: HoldRequest | undefined;
  resolve: (batch: TakeBatch) => void;
}

export const diskFailureMessage = 'pool could not be committed to disk';
/** How often a run of disk failures is logged. */
const failureLogIntervalMs = 5000;

/** What a pool service starts from: a new pool, or one restored from its file. */
export interface PoolServiceSetup {
  /** Values served before this start (kept in the pool file); 0 when absent. */
  servedTotal?: number;
  /** When the last batch arrived before this start, if known. */
  lastIngest?: number;
  /** The pool file's snapshot and journal; absent, the pool lives in memory only. */
  durability?: PoolDurability;
  options: PoolServiceOptions;
  clock: Clock;
  log: Logger;
}

export class PoolService {
  private pendingTakes: PendingTake[] = [];
  private readonly holders = new Holders();
  /** Callers of readyToStore() waiting for the files to be tried. */
  private readyWaiters: ((ready: boolean) => void)[] = [];
  /** Batches of values added since the last journal record. */
  private pendingIngest: Buffer[] = [];
  /** Batches of held values given back since the last journal record. */
  private pendingReturned: Buffer[] = [];
  private pumping: Promise<void> | undefined;
  /** The background part of a compaction, while it runs. */
  private compacting: Promise<void> | undefined;
  /** The files must be rewritten before the next commit (a write failed). */
  private rewriteNeeded = false;
  private lastRewriteFailure = -Infinity;
  private lastFailureLog = -Infinity;
  private failuresSinceLog = 0;
  /** Whether the last write failed: the first success after it is logged. */
  private failing = false;
  /** Running totals for the pool's metrics (pool-metrics.ts). */
  readonly counts = { ingested: 0, duplicates: 0, evicted: 0, diskFailures: 0 };

  private servedTotal: number;
  private lastIngest: number | undefined;
  private readonly durability: PoolDurability | undefined;
  private readonly options: PoolServiceOptions;
  private readonly deps: { clock: Clock; log: Logger };

  constructor(
    private readonly pool: ValuePool,
    setup: PoolServiceSetup,
  ) {
    this.servedTotal = setup.servedTotal ?? 0;
    this.lastIngest = setup.lastIngest;
    this.durability = setup.durability;
    this.options = setup.options;
    this.deps = { clock: setup.clock, log: setup.log };
  }

  /** Adds a value batch; the batch is the pool's own from here (its added entries are moved to its front). */
  ingest(batch: Buffer): IngestResult {
    const result: IngestResult = { added: 0, duplicates: 0, evicted: 0 };
    const count = entryCount(batch);
    for (let index = 0; index < count; index++) {
      const outcome = this.pool.add(batch, index, this.holders.total);
      if (outcome === 'duplicate') {
        result.duplicates++;
        continue;
      }
      if (outcome === 'added-evicting') result.evicted++;
      if (result.added !== index) batch.copy(batch, result.added * entryBytes, index * entryBytes, (index + 1) * entryBytes);
      result.added++;
    }
    this.counts.ingested += result.added;
    this.counts.duplicates += result.duplicates;
    this.counts.evicted += result.evicted;
    if (result.added > 0) {
      this.lastIngest = this.deps.clock.now();
      if (this.durability !== undefined) {
        this.pendingIngest.push(batch.subarray(0, result.added * entryBytes));
        this.pump();
      }
    }
    return result;
  }

  /** Values for `count` requests, and up to `hold.count` values for the front to hold. */
  take(count: number, hold?: HoldRequest): Promise<TakeBatch> {
    return new Promise((resolve) => {
      this.pendingTakes.push({ count, hold, resolve });
      this.pump();
    });
  }

  /** Counts the held values a front served as served, and puts back on top those it gives back (newest first). */
  report(holding: Holding, returned?: Buffer): void {
    const count = returned === undefined ? 0 : entryCount(returned);
    const served = this.holders.report(holding, count);
    // A pool file counted held values as served when it handed them over (they are on disk as
    // such), so a report changes nothing there and a give-back takes them off again.
    if (this.durability === undefined) this.servedTotal += served;
    else this.servedTotal -= count;
    if (returned === undefined || count === 0) return;
    this.pool.putBack(returned, count, this.holders.total);
    if (this.durability !== undefined) {
      this.pendingReturned.push(returned);
      this.pump();
    }
  }

  /**
   * Whether values handed over now are stored as they should be: always without a pool file; with
   * one, once the files take writes. After a failed write this tries the rewrite the next commit
   * would (at most once per `retryAfterFailureMs`), so a receiver that waits on it brings the disk
   * back into use even when no request comes.
   */
  readyToStore(): Promise<boolean> {
    if (this.durability === undefined || !this.rewriteNeeded) return Promise.resolve(true);
    return new Promise((resolve) => {
      this.readyWaiters.push(resolve);
      this.pump();
    });
  }

  /** True from a failed write of the pool files until one succeeds: nothing can be served meanwhile. */
  get diskFailing(): boolean {
    return this.failing;
  }

  status(): PoolStatus {
    const range = this.pool.ageRange();
    return {
      available: this.pool.size + this.holders.total,
      capacity: this.pool.capacity,
      ...(range === undefined ? {} : { oldest: new Date(range.oldest).toISOString(), newest: new Date(range.newest).toISOString() }),
      served_total: this.reportedServed(),
      ...(this.lastIngest === undefined ? {} : { last_ingest: new Date(this.lastIngest).toISOString() }),
    };
  }

  /** Values served as the status counts them: with a pool file, those held by fronts are not yet. */
  private reportedServed(): number {
    return this.durability === undefined ? this.servedTotal : this.servedTotal - this.holders.total;
  }

  /** Everything the snapshot holds, as of now; its entries are views on the pool, to be read at once. */
  snapshot(): SnapshotContent {
    return {
      servedTotal: this.servedTotal,
      lastIngest: this.lastIngest,
      entryCount: this.pool.size,
      entries: this.pool.batches(),
      servedKeys: this.pool.servedKeys(),
    };
  }

  /** Resolves once nothing is waiting to be written (shutdown). */
  async settle(): Promise<void> {
    while (this.pumping !== undefined || this.compacting !== undefined) await (this.pumping ?? this.compacting);
  }

  private pump(): void {
    if (this.pumping !== undefined) return;
    this.pumping = this.work().finally(() => {
      this.pumping = undefined;
      // Work that arrived while the last round was answering its callers.
      if (this.pendingTakes.length > 0 || this.pendingIngest.length > 0 || this.pendingReturned.length > 0 || this.readyWaiters.length > 0) this.pump();
    });
  }

  private async work(): Promise<void> {
    // Let every request already queued on the thread's port join the batch: messages are delivered
    // in the poll phase, setImmediate runs after it.
    await new Promise<void>((resolve) => setImmediate(resolve));
    // A journal grown long by a large arrival is compacted at once, not when requests come.
    while (
      this.pendingTakes.length > 0 ||
      this.pendingIngest.length > 0 ||
      this.pendingReturned.length > 0 ||
      (this.rewriteNeeded && !this.failing) ||
      this.readyWaiters.length > 0 ||
      this.compactionDue()
    ) {
      if (this.durability !== undefined && this.rewriteNeeded && !(await this.rewrite(this.durability))) {
        this.failAll(this.pendingTakes.splice(0));
        // The values that arrived or came back are in memory and will be in the next snapshot.
        this.pendingIngest = [];
        this.pendingReturned = [];
        this.answerReadyWaiters(false);
        return;
      }
      this.answerReadyWaiters(true);
      if (this.pendingIngest.length > 0) await this.recordIngest();
      // Before any take: a value given back and taken again must be journaled returned before it is served again.
      if (this.pendingReturned.length > 0 && !this.rewriteNeeded) await this.recordReturned();
      // After a failed append the journal may end in a partial record: nothing more goes into it.
      if (this.rewriteNeeded) continue;
      if (this.pendingTakes.length > 0) await this.commitTakes();
      if (this.durability !== undefined && this.compactionDue()) await this.compact(this.durability);
    }
  }

  private compactionDue(): boolean {
    return (
      this.durability !== undefined && this.compacting === undefined && !this.rewriteNeeded && this.durability.journalBytes > this.options.rewriteAtJournalBytes
    );
  }

  /** Starts a compaction; if it fails, the files are rewritten before the next commit instead. */
  private async compact(durability: PoolDurability): Promise<void> {
    const failed = (error: unknown) => {
      this.rewriteNeeded = true;
      this.logFailure(error);
    };
    try {
      const { written } = await durability.compact(this.snapshot());
      this.compacting = written
        .then(() => {}, failed)
        .finally(() => {
          this.compacting = undefined;
        });
    } catch (error) {
      failed(error);
    }
  }

  private async rewrite(durability: PoolDurability): Promise<boolean> {
    if (this.deps.clock.now() - this.lastRewriteFailure < this.options.retryAfterFailureMs) return false;
    try {
      await durability.rewrite(this.snapshot());
      this.rewriteNeeded = false;
      this.lastRewriteFailure = -Infinity;
      if (this.failing) this.deps.log.info('the pool files are written again; serving resumes');
      this.failing = false;
      return true;
    } catch (error) {
      this.lastRewriteFailure = this.deps.clock.now();
      this.logFailure(error);
      return false;
    }
  }

  private async recordIngest(): Promise<void> {
    const entries = this.pendingIngest;
    this.pendingIngest = [];
    if (this.durability === undefined) return;
    try {
      await this.durability.append({ kind: 'ingest', lastIngest: this.lastIngest ?? this.deps.clock.now(), entries });
    } catch (error) {
      // The values stay in memory; the rewrite that must come next puts them on disk.
      this.rewriteNeeded = true;
      this.logFailure(error);
    }
  }

  private async recordReturned(): Promise<void> {
    const entries = this.pendingReturned;
    this.pendingReturned = [];
    if (this.durability === undefined) return;
    try {
      await this.durability.append({ kind: 'returned', servedTotal: this.servedTotal, entries });
    } catch (error) {
      // The values are back in memory; the rewrite that must come next puts them on disk.
      this.rewriteNeeded = true;
      this.logFailure(error);
    }
  }

  private async commitTakes(): Promise<void> {
    const takes = this.pendingTakes;
    this.pendingTakes = [];
    const wanted = takes.reduce((sum, take) => sum + take.count, 0);
    const holdWanted = takes.reduce((sum, take) => sum + (take.hold?.count ?? 0), 0);
    const taken = Buffer.allocUnsafe((wanted + holdWanted) * entryBytes);
    let count = 0;
    while (count < wanted && this.pool.takeNewest(taken, count)) count++;
    let heldCount = 0;
    while (heldCount < holdWanted && this.pool.takeNewest(taken, count + heldCount)) heldCount++;
    // Held values are served without asking the pool again: with a pool file they go on disk as served now.
    const keys = Array.from({ length: count + heldCount }, (_, index) => entryKey(taken, index));
    const durableHeld = this.durability === undefined ? 0 : heldCount;
    if (keys.length > 0 && this.durability !== undefined) {
      try {
        await this.durability.append({ kind: 'served', servedTotal: this.servedTotal + count + durableHeld, keys });
      } catch (error) {
        this.pool.putBack(taken, count + heldCount);
        this.rewriteNeeded = true;
        this.logFailure(error);
        this.failAll(takes);
        return;
      }
    }
    for (const key of keys) this.pool.markServed(key);
    this.servedTotal += count + durableHeld;
    // Each take gets its shares in buffers of their own: they are copied to the front whole.
    let heldLeft = heldCount;
    const heldShares = takes.map(({ hold }) => {
      const share = Math.min(hold?.count ?? 0, heldLeft);
      heldLeft -= share;
      if (hold !== undefined && share > 0) this.holders.grant(hold.holding, share);
      return share;
    });
    const left = this.pool.size + this.holders.total;
    let next = 0;
    let nextHeld = count;
    takes.forEach((take, index) => {
      const share = Math.min(take.count, count - next);
      const heldShare = heldShares[index] ?? 0;
      const values = copyOf(taken, next, share);
      next += share;
      const held = heldShare > 0 ? copyOf(taken, nextHeld, heldShare) : undefined;
      nextHeld += heldShare;
      take.resolve({ values, available: left + count - next, ...(held === undefined ? {} : { held }) });
    });
  }

  private answerReadyWaiters(ready: boolean): void {
    for (const resolve of this.readyWaiters.splice(0)) resolve(ready);
  }

  private failAll(takes: readonly PendingTake[]): void {
    for (const take of takes) take.resolve({ values: new Uint8Array(0), available: this.pool.size, failure: diskFailureMessage });
  }

  private logFailure(error: unknown): void {
    const now = this.deps.clock.now();
    this.failing = true;
    this.counts.diskFailures++;
    this.failuresSinceLog++;
    if (now - this.lastFailureLog < failureLogIntervalMs) return;
    const code = (error as NodeJS.ErrnoException).code;
    this.deps.log.error(diskFailureMessage, { cause: code ?? String(error), failures: this.failuresSinceLog });
    this.lastFailureLog = now;
    this.failuresSinceLog = 0;
  }
}

/** Entries `from` to `from + count` of a batch, in a buffer of their own. */
function copyOf(batch: Buffer, from: number, count: number): Uint8Array {
  const copy = new Uint8Array(count * entryBytes);
  copy.set(batch.subarray(from * entryBytes, (from + count) * entryBytes));
  return copy;
}
