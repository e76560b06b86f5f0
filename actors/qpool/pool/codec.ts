// What the pool files hold, before sealing. The snapshot (`<pool_file>`) carries the whole pool and
// the served history; the journal (`<pool_file>.hot`) carries what happened since: values served
// (their keys), values that arrived, and values a front held and gave back unserved. Replaying the
// journal over the snapshot gives the pool back.
import { DecryptionError } from '../sealed/sealed.js';
import { valueSources } from '../values/record.js';
import { entryBytes, entryCount, valueBytes } from '../values/batch.js';

/** Version 2 names the journal that continues the snapshot; version 1 (no name) is still read. */
const formatVersion = 2;
const keyBytes = 6;
export const journalIdBytes = 32;

export interface SnapshotContent {
  servedTotal: number;
  /** Milliseconds since the epoch; undefined before the first arrival. */
  lastIngest: number | undefined;
  entryCount: number;
  /** Value batches, oldest first, `entryCount` entries in all; iterated once. */
  entries: Iterable<Buffer>;
  /** Served keys, oldest first. */
  servedKeys: number[];
}

/**
 * `entries`: value batches, oldest first (a decoded record has one); those of `returned` newest first,
 * as a front gives them back. `servedTotal` is the pool's count after the record, values held by
 * fronts included.
 */
export type JournalRecord =
  | { kind: 'served'; servedTotal: number; keys: number[] }
  | { kind: 'ingest'; lastIngest: number; entries: readonly Buffer[] }
  | { kind: 'returned'; servedTotal: number; entries: readonly Buffer[] };

/**
 * The snapshot's plaintext in pieces, the entries as they come: the pool is never copied whole for
 * it. `journalId` names the journal whose records follow the snapshot (its file salt).
 */
export function* encodeSnapshotContent(content: SnapshotContent, journalId: Buffer): Generator<Buffer> {
  const head = Buffer.alloc(1 + 8 + 8 + journalIdBytes + 4);
  let offset = head.writeUInt8(formatVersion, 0);
  offset = head.writeDoubleBE(content.servedTotal, offset);
  offset = head.writeDoubleBE(content.lastIngest ?? Number.NaN, offset);
  offset += journalId.copy(head, offset, 0, journalIdBytes);
  head.writeUInt32BE(content.entryCount, offset);
  yield head;
  let written = 0;
  for (const batch of content.entries) {
    written += entryCount(batch);
    yield batch;
  }
  if (written !== content.entryCount) throw new Error(`a snapshot announced ${content.entryCount} values and held ${written}`);
  yield encodeKeys(content.servedKeys);
}

/** The snapshot, and the journal that continues it (undefined in a version 1 file: whichever journals are there). */
export function decodeSnapshotContent(bytes: Buffer): { content: SnapshotContent; journalId: Buffer | undefined } {
  const reader = new Reader(bytes, 'the pool file');
  const version = reader.u8();
  if (version !== 1 && version !== formatVersion) throw new DecryptionError(`the pool file has an unknown format version ${version}`);
  const servedTotal = reader.f64();
  const lastIngest = reader.f64();
  const journalId = version === 1 ? undefined : Buffer.from(reader.view(journalIdBytes));
  const entries = readEntries(reader);
  const servedKeys = Array.from({ length: reader.u32() }, () => reader.key());
  reader.end();
  const content = {
    servedTotal,
    lastIngest: Number.isNaN(lastIngest) ? undefined : lastIngest,
    entryCount: entryCount(entries),
    entries: [entries],
    servedKeys,
  };
  return { content, journalId };
}

/** A journal record's plaintext in pieces; an arrival's values are not copied into it. */
export function encodeJournalRecord(record: JournalRecord): Buffer[] {
  if (record.kind === 'served') {
    const head = Buffer.alloc(1 + 8);
    head.writeUInt8(1, 0);
    head.writeDoubleBE(record.servedTotal, 1);
    return [head, encodeKeys(record.keys)];
  }
  const head = Buffer.alloc(1 + 8 + 4);
  let offset = head.writeUInt8(record.kind === 'ingest' ? 2 : 3, 0);
  offset = head.writeDoubleBE(record.kind === 'ingest' ? record.lastIngest : record.servedTotal, offset);
  head.writeUInt32BE(
    record.entries.reduce((sum, batch) => sum + entryCount(batch), 0),
    offset,
  );
  return [head, ...record.entries];
}

export function decodeJournalRecord(bytes: Buffer): JournalRecord {
  const reader = new Reader(bytes, 'a journal record');
  const kind = reader.u8();
  let record: JournalRecord;
  if (kind === 1) {
    const servedTotal = reader.f64();
    record = { kind: 'served', servedTotal, keys: Array.from({ length: reader.u32() }, () => reader.key()) };
  } else if (kind === 2) {
    const lastIngest = reader.f64();
    record = { kind: 'ingest', lastIngest, entries: [readEntries(reader)] };
  } else if (kind === 3) {
    const servedTotal = reader.f64();
    record = { kind: 'returned', servedTotal, entries: [readEntries(reader)] };
  } else {
    throw new DecryptionError(`a journal record has unknown kind ${kind}`);
  }
  reader.end();
  return record;
}

/** A count, then the 48-bit keys. */
function encodeKeys(keys: readonly number[]): Buffer {
  const bytes = Buffer.alloc(4 + keys.length * keyBytes);
  let offset = bytes.writeUInt32BE(keys.length, 0);
  for (const key of keys) offset = bytes.writeUIntBE(key, offset, keyBytes);
  return bytes;
}

/** The entries as a view on the decoded bytes; their sources are checked, as everything read is. */
function readEntries(reader: Reader): Buffer {
  const count = reader.u32();
  const entries = reader.view(count * entryBytes);
  for (let index = 0; index < count; index++) {
    const source = entries[index * entryBytes + valueBytes + 8] ?? 0;
    if (valueSources[source] === undefined) throw new DecryptionError(`${reader.what} names an unknown source`);
  }
  return entries;
}

/** Reads fields in order; running past the end is damage (authenticated content never does). */
class Reader {
  private offset = 0;

  constructor(
    private readonly buffer: Buffer,
    readonly what: string,
  ) {}

  u8(): number {
    return this.take(1).readUInt8(0);
  }

  u32(): number {
    return this.take(4).readUInt32BE(0);
  }

  f64(): number {
    return this.take(8).readDoubleBE(0);
  }

  key(): number {
    return this.take(keyBytes).readUIntBE(0, keyBytes);
  }

  /** The next `length` bytes, not copied. */
  view(length: number): Buffer {
    return this.take(length);
  }

  end(): void {
    if (this.offset !== this.buffer.length) throw new DecryptionError(`${this.what} has ${this.buffer.length - this.offset} bytes too many`);
  }

  private take(length: number): Buffer {
    if (this.offset + length > this.buffer.length) throw new DecryptionError(`${this.what} ends early`);
    const slice = this.buffer.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }
}
