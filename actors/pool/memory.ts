// The pool in memory: a bounded LIFO of 128-byte values (newest served first, oldest dropped at
// capacity) and the served history that keeps replayed values out. Values live in one preallocated
// buffer with parallel typed arrays, not as objects: 100,000 values take 13.7 MB and nothing for the
// garbage collector to walk.
//
// Values are recognised by their first 48 bits. Two different values sharing them is a one-in-10^5
// event over a full pool, and its only effect is that the later one is dropped as already seen: a
// value lost, never one served twice.
import { valueSources, type ValueSource } from './protocol.js';

export const valueBytes = 128;

export interface PoolEntry {
  value: Buffer;
  /** Collection time, milliseconds since the epoch. */
  timestamp: number;
  source: ValueSource;
}

export type AddOutcome = 'added' | 'duplicate';

export function valueKey(value: Uint8Array, offset = 0): number {
  return Buffer.from(value.buffer, value.byteOffset + offset, 6).readUIntBE(0, 6);
}

export class ValuePool {
  private readonly values: Buffer;
  private readonly timestamps: Float64Array;
  private readonly sources: Uint8Array;
  /** Index of the oldest value; the pool runs from there for `count` slots, wrapping. */
  private bottom = 0;
  private count = 0;
  private readonly inPool = new Set<number>();
  private readonly served: ServedHistory;

  constructor(
    readonly capacity: number,
    servedHistory: number,
  ) {
    this.values = Buffer.alloc(capacity * valueBytes);
    this.timestamps = new Float64Array(capacity);
    this.sources = new Uint8Array(capacity);
    this.served = new ServedHistory(servedHistory);
  }

  get size(): number {
    return this.count;
  }

  /** Adds a value on top; at capacity the oldest is dropped first. Returns whether it was new. */
  add(entry: PoolEntry): { outcome: AddOutcome; evicted: boolean } {
    const key = valueKey(entry.value);
    if (this.inPool.has(key) || this.served.has(key)) return { outcome: 'duplicate', evicted: false };
    let evicted = false;
    if (this.count === this.capacity) {
      this.inPool.delete(valueKey(this.values, this.bottom * valueBytes));
      this.bottom = (this.bottom + 1) % this.capacity;
      this.count--;
      evicted = true;
    }
    this.place(entry, (this.bottom + this.count) % this.capacity);
    this.count++;
    this.inPool.add(key);
    return { outcome: 'added', evicted };
  }

  /** Removes and returns the newest value. */
  takeNewest(): PoolEntry | undefined {
    if (this.count === 0) return undefined;
    const slot = (this.bottom + this.count - 1) % this.capacity;
    const entry = this.entryAt(slot);
    this.count--;
    this.inPool.delete(valueKey(entry.value));
    return entry;
  }

  /** Puts taken values back on top, the first given ending up newest (a commit that failed). */
  putBack(entries: readonly PoolEntry[]): void {
    for (let index = entries.length - 1; index >= 0; index--) {
      const entry = entries[index];
      if (entry !== undefined) this.add(entry);
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
    const kept = this.entries().filter((entry) => !keys.has(valueKey(entry.value)));
    this.bottom = 0;
    this.count = 0;
    this.inPool.clear();
    for (const entry of kept) this.add(entry);
  }

  /** Collection times of the oldest and newest values. */
  ageRange(): { oldest: number; newest: number } | undefined {
    if (this.count === 0) return undefined;
    return { oldest: this.timestamps[this.bottom] ?? 0, newest: this.timestamps[(this.bottom + this.count - 1) % this.capacity] ?? 0 };
  }

  /** Every value, oldest first (copies). */
  entries(): PoolEntry[] {
    return Array.from({ length: this.count }, (_, index) => this.entryAt((this.bottom + index) % this.capacity));
  }

  /** Served keys, oldest first. */
  servedKeys(): number[] {
    return this.served.keys();
  }

  private place(entry: PoolEntry, slot: number): void {
    entry.value.copy(this.values, slot * valueBytes, 0, valueBytes);
    this.timestamps[slot] = entry.timestamp;
    this.sources[slot] = valueSources.indexOf(entry.source);
  }

  private entryAt(slot: number): PoolEntry {
    const value = Buffer.from(this.values.subarray(slot * valueBytes, (slot + 1) * valueBytes));
    return { value, timestamp: this.timestamps[slot] ?? 0, source: valueSources[this.sources[slot] ?? 0] ?? 'keyed' };
  }
}

/** The last `capacity` served keys: a ring for the order, a set for lookups. */
class ServedHistory {
  private readonly ring: Float64Array;
  private next = 0;
  private filled = 0;
  private readonly set = new Set<number>();

  constructor(private readonly capacity: number) {
    this.ring = new Float64Array(capacity);
  }

  has(key: number): boolean {
    return this.set.has(key);
  }

  remember(key: number): void {
    if (this.capacity === 0 || this.set.has(key)) return;
    if (this.filled === this.capacity) this.set.delete(this.ring[this.next] ?? -1);
    else this.filled++;
    this.ring[this.next] = key;
    this.set.add(key);
    this.next = (this.next + 1) % this.capacity;
  }

  keys(): number[] {
    const start = this.filled === this.capacity ? this.next : 0;
    return Array.from({ length: this.filled }, (_, index) => this.ring[(start + index) % this.capacity] ?? 0);
  }
}
