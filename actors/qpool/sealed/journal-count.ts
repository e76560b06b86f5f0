// A journal's record count, kept in its head where a cut cannot reach it: a journal shortened by
// whole records, or cut inside one, then holds fewer records than its head says were written, and
// is refused instead of being taken for a shorter history (or for a write cut short by a crash).
//
// The count is written after the record it counts is on disk (fdatasync), so whatever a crash
// leaves, the count on disk never exceeds the records on disk; at worst it lags by the record
// written last, until the next commit's fdatasync or the kernel's writeback carries it out. Two
// slots, written in turn, each with its own MAC: a torn write of one leaves the other, one lower.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { DecryptionError, fileKey } from './sealed.js';

const countBytes = 8;
const macBytes = 16;
const slotBytes = countBytes + macBytes;
/** What the count takes in a journal's head, after the sealed-file header. */
export const journalCountBytes = 2 * slotBytes;

/** The key a journal's count is authenticated with: only the passphrase's holder can raise it. */
export function countKey(masterKey: Buffer, fileSalt: Buffer, magic: string): Buffer {
  return fileKey(masterKey, fileSalt, `${magic} record count`);
}

/** Both slots holding `count`: a new journal's head. */
export function encodeCountSlots(key: Buffer, count: number): Buffer {
  return Buffer.concat([encodeCountSlot(key, count), encodeCountSlot(key, count)]);
}

/** Where in the count area the slot for `count` goes, and its bytes. */
export function countSlotWrite(key: Buffer, count: number): { offset: number; bytes: Buffer } {
  return { offset: (count % 2) * slotBytes, bytes: encodeCountSlot(key, count) };
}

/** The count the head vouches for: the larger of the slots whose MAC holds. */
export function decodeCount(key: Buffer, area: Buffer, what: string): number {
  let count: number | undefined;
  for (let slot = 0; slot < 2; slot++) {
    const bytes = area.subarray(slot * slotBytes, (slot + 1) * slotBytes);
    if (bytes.length !== slotBytes) break;
    const value = Number(bytes.readBigUInt64BE(0));
    if (timingSafeEqual(bytes.subarray(countBytes), mac(key, value))) count = Math.max(count ?? 0, value);
  }
  if (count === undefined) throw new DecryptionError(`${what} has no valid record count: wrong passphrase, or the file was altered`);
  return count;
}

function encodeCountSlot(key: Buffer, count: number): Buffer {
  const bytes = Buffer.alloc(slotBytes);
  bytes.writeBigUInt64BE(BigInt(count));
  mac(key, count).copy(bytes, countBytes);
  return bytes;
}

function mac(key: Buffer, count: number): Buffer {
  const value = Buffer.alloc(countBytes);
  value.writeBigUInt64BE(BigInt(count));
  return createHmac('sha256', key).update(value).digest().subarray(0, macBytes);
}
