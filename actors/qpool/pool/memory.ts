// The pool in memory: a bounded LIFO of 128-byte values (newest served first, oldest dropped at
// capacity) and the served history that keeps replayed values out. The pool is one preallocated ring
// of entries in the layout of values/batch.ts, not objects: 100,000 values take 13.7 MB and nothing for the
// garbage collector to walk, a value comes in or goes out as one copy, and the whole pool is at most
// two contiguous runs of bytes, sealed into a snapshot as they lie. The keys in the pool and the
// served history are indexed in typed arrays too (key-index.ts), sized once at start.
import { KeyIndex } from './key-index.js';
import { entryBytes, entryKey, entryTimestamp } from '../values/batch.js';

/** `added-evicting`: added, and the oldest value was dropped to make room. */
export type AddOutcome = 'added' | 'added-evicting' | 'duplicate';

export class ValuePool {
  private readonly ring: Buffer;
  /** Slot of the oldest value; the pool runs from there for `count` slots, wrapping. */
  private bottom = 0;
  private count = 0;
  private readonly inPool: KeyIndex;
  private readonly served: ServedHistory;
  /**
   * The pool cut into runs of values whose collection times do not go down, bottom run first: the
   * oldest and newest by collection time are a run's first and last, so ageRange reads two values a
   * run instead of every value. Values arrive in collection order but for a late batch (a spool
   * replayed after a diode outage, two sources) or values put back, so there are few runs; each add
   * or removal costs one comparison.
   */
  private readonly runs: RunLengths;

  constructor(
    readonly capacity: number,
    servedHistory: number,
  ) {
    this.ring = Buffer.alloc(capacity * entryBytes);
    this.inPool = new KeyIndex(capacity);
    this.served = new ServedHistory(servedHistory);
    this.runs = new RunLengths(capacity);
  }

  get size(): number {
    return this.count;
  }

  /**
   * Adds entry `index` of `batch` on top; at capacity the oldest is dropped first. `heldOutside`
   * values the fronts hold count toward the capacity (holders.ts).
   */
  add(batch: Buffer, index: number, heldOutside = 0): AddOutcome {
    const key = entryKey(batch, index);
    if (this.inPool.has(key) || this.served.has(key)) return 'duplicate';
    let outcome: AddOutcome = 'added';
    if (this.count > 0 && this.count + heldOutside >= this.capacity) {
      this.inPool.delete(entryKey(this.ring, this.bottom));
      this.bottom = (this.bottom + 1) % this.capacity;
      this.count--;
      this.runs.shrinkBottom();
      outcome = 'added-evicting';
    }
    const slot = (this.bottom + this.count) % this.capacity;
    batch.copy(this.ring, slot * entryBytes, index * entryBytes, (index + 1) * entryBytes);
    const inOrder = this.count > 0 && entryTimestamp(this.ring, slot) >= entryTimestamp(this.ring, (slot + this.capacity - 1) % this.capacity);
    this.runs.growTop(inOrder);
    this.count++;
    this.inPool.set(key, 0);
    return outcome;
  }

  /** Adds every entry of a batch, oldest first. */
  addAll(batch: Buffer): void {
    for (let index = 0; index < batch.length / entryBytes; index++) this.add(batch, index);
  }

  /** Removes the newest value into entry `index` of `out`; false when the pool is empty. */
  takeNewest(out: Buffer, index: number): boolean {
    if (this.count === 0) return false;
    const slot = (this.bottom + this.count - 1) % this.capacity;
    this.ring.copy(out, index * entryBytes, slot * entryBytes, (slot + 1) * entryBytes);
    this.count--;
    this.runs.shrinkTop();
    this.inPool.delete(entryKey(this.ring, slot));
    return true;
  }

  /**
   * Puts the first `count` entries of `taken` back on top, the first ending up newest: a commit that
   * failed, or values a front held and gives back (no longer served, so they are forgotten as such).
   */
  putBack(taken: Buffer, count: number, heldOutside = 0): void {
    for (let index = count - 1; index >= 0; index--) {
      this.served.forget(entryKey(taken, index));
      this.add(taken, index, heldOutside);
    }
  }

  markServed(key: number): void {
    this.served.remember(key);
  }

  hasServed(key: number): boolean {
    return this.served.has(key);
  }

  /** Drops values whose keys are in `keys` (replaying a journal). */
  removeKeys(keys: ReadonlySet<number>): void {
    const all = this.toBatch();
    this.bottom = 0;
    this.count = 0;
    this.runs.clear();
    this.inPool.clear();
    for (let index = 0; index < all.length / entryBytes; index++) if (!keys.has(entryKey(all, index))) this.add(all, index);
  }

  /** Collection times of the oldest and newest values (by when they were collected, not when they came). */
  ageRange(): { oldest: number; newest: number } | undefined {
    if (this.count === 0) return undefined;
    let oldest = Infinity;
    let newest = -Infinity;
    let slot = this.bottom;
    for (const length of this.runs.lengths()) {
      oldest = Math.min(oldest, entryTimestamp(this.ring, slot));
      slot = (slot + length) % this.capacity;
      newest = Math.max(newest, entryTimestamp(this.ring, (slot + this.capacity - 1) % this.capacity));
    }
    return { oldest, newest };
  }

  /** Every value as one batch, oldest first (a copy). */
  toBatch(): Buffer {
    return Buffer.concat([...this.batches()]);
  }

  /** Every value, oldest first, as at most two views on the pool itself: valid until it next changes. */
  batches(): Buffer[] {
    const end = this.bottom + this.count;
    if (end <= this.capacity) return [this.ring.subarray(this.bottom * entryBytes, end * entryBytes)];
    return [this.ring.subarray(this.bottom * entryBytes), this.ring.subarray(0, (end - this.capacity) * entryBytes)];
  }

  /** Served keys, oldest first. */
  servedKeys(): number[] {
    return this.served.keys();
  }
}

/** The lengths of the pool's runs (ValuePool.runs): a ring, as there can be as many runs as values. */
class RunLengths {
  private readonly ring: Uint32Array;
  private first = 0;
  private count = 0;

  constructor(capacity: number) {
    this.ring = new Uint32Array(capacity);
  }

  /** A value added on top: it extends the top run when `inOrder` (not older than the value below it). */
  growTop(inOrder: boolean): void {
    if (inOrder && this.count > 0) {
      this.ring[this.slot(this.count - 1)]!++;
      return;
    }
    this.ring[this.slot(this.count)] = 1;
    this.count++;
  }

  /** The top value taken. */
  shrinkTop(): void {
    const top = this.slot(this.count - 1);
    if (--this.ring[top]! === 0) this.count--;
  }

  /** The bottom value dropped. */
  shrinkBottom(): void {
    if (--this.ring[this.first]! !== 0) return;
    this.first = (this.first + 1) % this.ring.length;
    this.count--;
  }

  clear(): void {
    this.first = 0;
    this.count = 0;
  }

  *lengths(): Generator<number> {
    for (let index = 0; index < this.count; index++) yield this.ring[this.slot(index)]!;
  }

  private slot(index: number): number {
    return (this.first + index) % this.ring.length;
  }
}

/** The last `capacity` served keys: a ring for the order, a map of each key to its slot for lookups. */
class ServedHistory {
  private readonly ring: Float64Array;
  private next = 0;
  private filled = 0;
  private readonly slots: KeyIndex;

  constructor(private readonly capacity: number) {
    this.ring = new Float64Array(capacity);
    this.slots = new KeyIndex(capacity);
  }

  has(key: number): boolean {
    return this.slots.has(key);
  }

  remember(key: number): void {
    if (this.capacity === 0 || this.slots.has(key)) return;
    if (this.filled === this.capacity) {
      const oldest = this.ring[this.next] ?? -1;
      // A key forgotten and remembered again lives in a newer slot: this one is stale.
      if (this.slots.get(oldest) === this.next) this.slots.delete(oldest);
    } else {
      this.filled++;
    }
    this.ring[this.next] = key;
    this.slots.set(key, this.next);
    this.next = (this.next + 1) % this.capacity;
  }

  /** A value held by a front and given back unserved. Its slot stays in the ring, as stale. */
  forget(key: number): void {
    this.slots.delete(key);
  }

  /** Keys still remembered, oldest first. */
  keys(): number[] {
    const start = this.filled === this.capacity ? this.next : 0;
    const keys: number[] = [];
    for (let index = 0; index < this.filled; index++) {
      const slot = (start + index) % this.capacity;
      const key = this.ring[slot] ?? 0;
      if (this.slots.get(key) === slot) keys.push(key);
    }
    return keys;
  }
}
