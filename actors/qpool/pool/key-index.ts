// Value keys (48-bit integers, values/batch.ts) mapped to a small integer, in two preallocated typed
// arrays: open addressing with linear probing, deletion by backward shift (no tombstones). A
// Map<number, number> of 100,000 such keys holds a heap number and a hash-table entry per key for the
// garbage collector to walk, and grows by copying; this holds 12 bytes per slot, fixed at start.

/** Slots per key at most: probes stay short at a load of one half. */
const slotsPerKey = 2;

export class KeyIndex {
  /** Each key plus one, so that an empty slot (0) is told from key 0. */
  private readonly keys: Float64Array;
  private readonly values: Int32Array;
  private readonly mask: number;
  private count = 0;

  /** Room for `maxKeys` keys; adding one more is a programming error. */
  constructor(readonly maxKeys: number) {
    let slots = 16;
    while (slots < maxKeys * slotsPerKey) slots *= 2;
    this.keys = new Float64Array(slots);
    this.values = new Int32Array(slots);
    this.mask = slots - 1;
  }

  get size(): number {
    return this.count;
  }

  has(key: number): boolean {
    return this.keys[this.find(key)] !== 0;
  }

  /** The value stored for `key`; undefined when it is not there. */
  get(key: number): number | undefined {
    const slot = this.find(key);
    return this.keys[slot] === 0 ? undefined : this.values[slot];
  }

  set(key: number, value: number): void {
    const slot = this.find(key);
    if (this.keys[slot] === 0) {
      if (this.count === this.maxKeys) throw new Error(`a key index for ${this.maxKeys} keys is full`);
      this.keys[slot] = key + 1;
      this.count++;
    }
    this.values[slot] = value;
  }

  delete(key: number): boolean {
    let hole = this.find(key);
    if (this.keys[hole] === 0) return false;
    // Backward shift: every key after the hole in its run moves up unless its home lies after the hole.
    for (let next = (hole + 1) & this.mask; this.keys[next] !== 0; next = (next + 1) & this.mask) {
      const home = this.home((this.keys[next] ?? 1) - 1);
      const homeAfterHole = hole <= next ? home > hole && home <= next : home > hole || home <= next;
      if (homeAfterHole) continue;
      this.keys[hole] = this.keys[next] ?? 0;
      this.values[hole] = this.values[next] ?? 0;
      hole = next;
    }
    this.keys[hole] = 0;
    this.count--;
    return true;
  }

  clear(): void {
    this.keys.fill(0);
    this.count = 0;
  }

  /** The slot holding `key`, or the empty slot where it would go. */
  private find(key: number): number {
    const stored = key + 1;
    let slot = this.home(key);
    for (let probed = this.keys[slot]; probed !== 0 && probed !== stored; probed = this.keys[slot]) slot = (slot + 1) & this.mask;
    return slot;
  }

  /**
   * Both halves of the key mixed (murmur3's finaliser): keys are the first bits of random values,
   * but a pool fed values that share some of those bits must not probe in long runs.
   */
  private home(key: number): number {
    let hash = (key >>> 0) ^ Math.imul(Math.floor(key / 0x1_0000_0000), 0x9e3779b1);
    hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
    hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
    return (hash ^ (hash >>> 16)) & this.mask;
  }
}
