// Two shapes of sealed file (see sealed.ts for the keys): a snapshot, written whole and atomically,
// and an append-only journal of sealed records. A journal's records are numbered by their nonces, so
// reordered records fail to open; its head counts the records on disk (journal-count.ts), so a cut
// journal fails to open too. An incomplete record past the counted ones is what a crash during an
// append leaves behind and is reported, not treated as damage. Each length is stored with its
// complement: a damaged length must be refused as damage, not taken for a torn tail, or the records
// after it (values recorded as served) would be dropped.
import { closeSync, fdatasyncSync, openSync, writeSync, writevSync } from 'node:fs';
import { countKey, countSlotWrite, decodeCount, encodeCountSlots, journalCountBytes } from './journal-count.js';
import { writeSecretFile } from '../../../src/store/secret.js';
import {
  DecryptionError,
  decodeHeader,
  encodeHeader,
  fileKey,
  headerBytes,
  newFileSalt,
  seal,
  sequenceNonce,
  tagBytes,
  unseal,
  type KdfParams,
  type SealedHeader,
} from './sealed.js';

/** The record's length, then its bitwise complement. */
const recordLengthBytes = 8;
/** No record the pool writes comes near this; a larger length field is damage. */
const maxRecordBytes = 256 * 1024 * 1024;

/** The whole file, in pieces to be written in order. */
export function encodeSnapshot(magic: string, masterKey: Buffer, kdf: KdfParams, plaintext: Iterable<Uint8Array>): Buffer[] {
  const header = encodeHeader(magic, { kdf, fileSalt: newFileSalt() });
  const key = fileKey(masterKey, header.subarray(headerBytes - 32), magic);
  return [header, ...seal(key, sequenceNonce(0), plaintext, header)];
}

/** The header of a sealed file, to learn which passphrase derivation opens it. */
export function readHeader(magic: string, bytes: Buffer, what: string): SealedHeader {
  return decodeHeader(magic, bytes, what);
}

export function decodeSnapshot(magic: string, masterKey: Buffer, bytes: Buffer, what: string): Buffer {
  const header = decodeHeader(magic, bytes, what);
  return unseal(fileKey(masterKey, header.fileSalt, magic), sequenceNonce(0), bytes.subarray(headerBytes), bytes.subarray(0, headerBytes));
}

export interface JournalContent {
  records: Buffer[];
  /** Bytes after the last whole record: an append cut short by a crash. */
  incompleteTailBytes: number;
}

/** `counted`: the journal's head holds its record count (every journal written now; not those of qpool 0.1.0-beta.1). */
export function decodeJournal(magic: string, masterKey: Buffer, bytes: Buffer, what: string, counted = true): JournalContent {
  const header = decodeHeader(magic, bytes, what);
  const key = fileKey(masterKey, header.fileSalt, magic);
  const records: Buffer[] = [];
  let offset = headerBytes;
  let written = 0;
  if (counted) {
    if (bytes.length < headerBytes + journalCountBytes) throw new DecryptionError(`${what} ends inside its header`);
    written = decodeCount(countKey(masterKey, header.fileSalt, magic), bytes.subarray(headerBytes, headerBytes + journalCountBytes), what);
    offset += journalCountBytes;
  }
  while (offset + recordLengthBytes <= bytes.length) {
    const length = bytes.readUInt32BE(offset);
    if (~bytes.readUInt32BE(offset + 4) >>> 0 !== length) throw new DecryptionError(`${what} has a damaged record length at byte ${offset}`);
    if (length < tagBytes || length > maxRecordBytes) throw new DecryptionError(`${what} has a record of impossible length ${length} at byte ${offset}`);
    const end = offset + recordLengthBytes + length;
    if (end > bytes.length) break;
    const lengthField = bytes.subarray(offset, offset + recordLengthBytes);
    records.push(unseal(key, sequenceNonce(records.length), bytes.subarray(offset + recordLengthBytes, end), lengthField));
    offset = end;
  }
  if (records.length < written) throw new DecryptionError(`${what} was cut short: it holds ${records.length} complete records of the ${written} written`);
  return { records, incompleteTailBytes: bytes.length - offset };
}

/**
 * A journal open for appending; every append is on disk (fdatasync) before it resolves. Appends are
 * synchronous on purpose: the journal's owner is a thread whose one job is committing (the pool), an
 * fdatasync here takes a few tenths of a millisecond, and two hops through libuv's thread pool per
 * commit cost more than that on a busy machine. Requests arriving meanwhile queue on the thread's
 * port and join the next commit.
 */
export class JournalWriter {
  private sequence = 0;
  /** A write failed: the file may end in part of a record, so nothing more goes into it. */
  private broken = false;

  private constructor(
    private readonly fd: number,
    private readonly key: Buffer,
    private readonly countKey: Buffer,
    private written: number,
    /** The random salt of this journal's key, which also names it: a snapshot says which journal continues it. */
    readonly fileSalt: Buffer,
  ) {}

  /** Replaces `path` with an empty journal (atomically, mode 0600) and opens it for appending. */
  static async create(path: string, magic: string, masterKey: Buffer, kdf: KdfParams, fileSalt = newFileSalt()): Promise<JournalWriter> {
    const header = encodeHeader(magic, { kdf, fileSalt });
    const counter = countKey(masterKey, fileSalt, magic);
    await writeSecretFile(path, [header, encodeCountSlots(counter, 0)]);
    // Not opened for O_APPEND: the count in the head is rewritten in place, and Linux writes
    // everything to an O_APPEND file at its end, whatever position is given.
    const fd = openSync(path, 'r+');
    return new JournalWriter(fd, fileKey(masterKey, fileSalt, magic), counter, headerBytes + journalCountBytes, fileSalt);
  }

  /** Bytes in the file, header included. */
  get size(): number {
    return this.written;
  }

  /** Appends one record whose plaintext is the pieces given, in order. */
  append(plaintext: readonly Uint8Array[]): void {
    if (this.broken) throw new Error('a write to this journal failed; it takes no more records');
    const sealedLength = plaintext.reduce((sum, piece) => sum + piece.byteLength, 0) + tagBytes;
    const lengthField = Buffer.alloc(recordLengthBytes);
    lengthField.writeUInt32BE(sealedLength);
    lengthField.writeUInt32BE(~sealedLength >>> 0, 4);
    const record = [lengthField, ...seal(this.key, sequenceNonce(this.sequence), plaintext, lengthField)];
    // The sequence moves on even if the write fails: the caller replaces a journal after any failure,
    // and a nonce must never be used twice.
    this.sequence++;
    try {
      writeAllSync(this.fd, record, this.written);
      fdatasyncSync(this.fd);
      this.written += recordLengthBytes + sealedLength;
      // Only now that the record is on disk may the count say so; the next fdatasync carries it out.
      const slot = countSlotWrite(this.countKey, this.sequence);
      writeAllSync(this.fd, [slot.bytes], headerBytes + slot.offset);
    } catch (error) {
      this.broken = true;
      throw error;
    }
  }

  /** Puts the count of the last record on disk as well (a clean stop): a cut of any record is then refused. */
  sync(): void {
    fdatasyncSync(this.fd);
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** Writes every piece at `position`, in one writev when the kernel takes it all (it may stop short: at IOV_MAX pieces, or on a full disk). */
function writeAllSync(fd: number, pieces: readonly Uint8Array[], position: number): void {
  let written = writevSync(fd, pieces, position);
  let at = position + written;
  for (const piece of pieces) {
    if (written >= piece.byteLength) {
      written -= piece.byteLength;
      continue;
    }
    for (let offset = written; offset < piece.byteLength; ) {
      const count = writeSync(fd, piece, offset, piece.byteLength - offset, at);
      offset += count;
      at += count;
    }
    written = 0;
  }
}
