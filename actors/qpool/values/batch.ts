// Values in bulk as one byte array, entry after entry: the 128 value bytes, the collection time
// (float64 big-endian, milliseconds since the epoch) and the source's index in `valueSources`.
// It is the one form values take everywhere past the diode's JSON lines: between threads (one
// buffer copied with memcpy instead of thousands of objects cloned and collected), inside the pool,
// and in the pool files.
import { valueSources, type ValueRecord, type ValueSource } from './record.js';

export const valueBytes = 128;
export const entryBytes = valueBytes + 8 + 1;

/** A Buffer over the same bytes: a batch that crossed threads arrives as a plain Uint8Array. */
export function asBuffer(batch: Uint8Array): Buffer {
  return Buffer.isBuffer(batch) ? batch : Buffer.from(batch.buffer, batch.byteOffset, batch.byteLength);
}

/** Entries in a batch; a length that is not a whole number of entries is a programming error. */
export function entryCount(batch: Uint8Array): number {
  if (batch.byteLength % entryBytes !== 0) throw new Error(`a value batch of ${batch.byteLength} bytes is not a whole number of entries`);
  return batch.byteLength / entryBytes;
}

/**
 * The identity the pool dedups on: a value's first 48 bits. Two different values sharing them is a
 * one-in-10^5 event over a full pool; the later one is then dropped as already seen, a value lost,
 * never one served twice.
 */
export function entryKey(batch: Buffer, index: number): number {
  return batch.readUIntBE(index * entryBytes, 6);
}

export function entryTimestamp(batch: Buffer, index: number): number {
  return batch.readDoubleBE(index * entryBytes + valueBytes);
}

export function entrySource(batch: Buffer, index: number): ValueSource {
  return valueSources[batch[index * entryBytes + valueBytes + 8] ?? 0] ?? 'keyed';
}

export function entryHex(batch: Buffer, index: number): string {
  return batch.toString('hex', index * entryBytes, index * entryBytes + valueBytes);
}

/** One entry as /api/random answers it and the diode carries it. */
export function recordAt(batch: Buffer, index: number): ValueRecord {
  return { value: entryHex(batch, index), timestamp: new Date(entryTimestamp(batch, index)).toISOString(), source: entrySource(batch, index) };
}

/** Builds a batch one entry at a time, growing as needed. */
export class ValueBatchBuilder {
  private bytes: Buffer;
  private count = 0;

  constructor(initialEntries = 64) {
    this.bytes = Buffer.allocUnsafe(initialEntries * entryBytes);
  }

  get size(): number {
    return this.count;
  }

  /** Appends a value given as 256 hex characters; false, and nothing appended, if they are not hex. */
  pushHex(hex: string, timestamp: number, source: ValueSource): boolean {
    const offset = this.reserve();
    if (hex.length !== valueBytes * 2 || this.bytes.write(hex, offset, valueBytes, 'hex') !== valueBytes) return false;
    this.finishEntry(offset, timestamp, source);
    return true;
  }

  /** Appends a value given as its 128 bytes. */
  push(value: Uint8Array, timestamp: number, source: ValueSource): void {
    const offset = this.reserve();
    this.bytes.set(value.subarray(0, valueBytes), offset);
    this.finishEntry(offset, timestamp, source);
  }

  /** The entries so far, in a buffer of exactly their size (a view on a larger one would cross threads whole); the builder starts over. */
  finish(): Buffer {
    const batch = Buffer.from(new ArrayBuffer(this.count * entryBytes));
    this.bytes.copy(batch, 0, 0, batch.length);
    this.count = 0;
    return batch;
  }

  private reserve(): number {
    const offset = this.count * entryBytes;
    if (offset + entryBytes > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, entryBytes * 64));
      this.bytes.copy(grown, 0, 0, offset);
      this.bytes = grown;
    }
    return offset;
  }

  private finishEntry(offset: number, timestamp: number, source: ValueSource): void {
    this.bytes.writeDoubleBE(timestamp, offset + valueBytes);
    this.bytes[offset + valueBytes + 8] = valueSources.indexOf(source);
    this.count++;
  }
}
