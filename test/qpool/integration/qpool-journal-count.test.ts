// The pool journal's record count on a real file: every cut that removes a counted record is refused,
// and every state a crash can leave (a record on disk whose count is not, half a record past the
// counted ones, a torn count slot) still opens. Journals written before the count are still read.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { journalCountBytes } from '../../../actors/qpool/sealed/journal-count.js';
import { decodeJournal, JournalWriter } from '../../../actors/qpool/sealed/sealed-file.js';
import { DecryptionError, encodeHeader, fileKey, headerBytes, newFileSalt, newKdfParams, seal, sequenceNonce } from '../../../actors/qpool/sealed/sealed.js';
import { tempDir } from '../../helpers/qpool.js';

const magic = 'QPOOLJN2';
const masterKey = randomBytes(32);

/** A journal of `count` records of assorted sizes; the file's bytes after each append, and the records. */
async function writtenJournal(dir: string, count: number) {
  const path = join(dir, 'journal');
  const writer = await JournalWriter.create(path, magic, masterKey, newKdfParams());
  const records: Buffer[] = [];
  const states = [await readFile(path)];
  for (let index = 0; index < count; index++) {
    const record = randomBytes(1 + ((index * 37) % 300));
    writer.append([record]);
    records.push(record);
    states.push(await readFile(path));
  }
  writer.sync();
  writer.close();
  return { bytes: await readFile(path), states, records };
}

/** Where each record starts, and where the last one ends. */
function boundaries(bytes: Buffer): number[] {
  const offsets = [headerBytes + journalCountBytes];
  while (offsets.at(-1)! + 8 <= bytes.length) offsets.push(offsets.at(-1)! + 8 + bytes.readUInt32BE(offsets.at(-1)));
  return offsets;
}

test('every cut of a journal that removes a counted record is refused; bytes past them are a torn tail', async (t) => {
  const { bytes, records } = await writtenJournal(await tempDir(t), 6);
  t.deepEqual(decodeJournal(magic, masterKey, bytes, 'journal'), { records, incompleteTailBytes: 0 });
  const recordsStart = headerBytes + journalCountBytes;
  for (let length = 0; length < bytes.length; length++) {
    t.throws(() => decodeJournal(magic, masterKey, bytes.subarray(0, length), 'journal'), { instanceOf: DecryptionError }, `cut to ${length} bytes`);
  }
  t.true(recordsStart < bytes.length);
  // Half a record more, as a crash during the next append leaves it.
  const length = Buffer.alloc(8);
  length.writeUInt32BE(200);
  length.writeUInt32BE(~200 >>> 0, 4);
  const torn = Buffer.concat([bytes, length, randomBytes(32)]);
  t.deepEqual(decodeJournal(magic, masterKey, torn, 'journal'), { records, incompleteTailBytes: 40 });
  t.throws(() => decodeJournal(magic, masterKey, bytes.subarray(0, boundaries(bytes).at(-2)), 'journal'), {
    message: /journal was cut short: it holds 5 complete records of the 6 written/,
  });
});

test('what a crash can leave opens: a record whose count is not on disk yet, a torn count slot', async (t) => {
  const { states, records } = await writtenJournal(await tempDir(t), 4);
  const countArea = (state: Buffer) => state.subarray(headerBytes, headerBytes + journalCountBytes);
  // The fourth record is on disk, the count still says three (the crash came between the two writes).
  const lagging = Buffer.concat([states[4]!.subarray(0, headerBytes), countArea(states[3]!), states[4]!.subarray(headerBytes + journalCountBytes)]);
  t.deepEqual(decodeJournal(magic, masterKey, lagging, 'journal').records, records);
  // The write of the fourth count was torn: its slot is garbage, the other still counts three.
  const tornSlot = Buffer.from(states[4]!);
  const slotBytes = journalCountBytes / 2;
  randomBytes(slotBytes).copy(tornSlot, headerBytes + (4 % 2) * slotBytes);
  t.deepEqual(decodeJournal(magic, masterKey, tornSlot, 'journal').records, records);
  // ...but with the fourth record cut off as well, three are all it needs.
  t.deepEqual(decodeJournal(magic, masterKey, tornSlot.subarray(0, boundaries(tornSlot).at(-2)), 'journal').records, records.slice(0, 3));
  // Both slots unreadable: altered, or a wrong passphrase.
  const noCount = Buffer.from(states[4]!);
  randomBytes(journalCountBytes).copy(noCount, headerBytes);
  t.throws(() => decodeJournal(magic, masterKey, noCount, 'journal'), { message: /no valid record count/ });
  t.throws(() => decodeJournal(magic, randomBytes(32), states[4]!, 'journal'), { instanceOf: DecryptionError });
});

test('a count cannot be raised or carried over without the key: a slot from another journal is refused', async (t) => {
  const dir = await tempDir(t);
  const one = await writtenJournal(dir, 3);
  await writeFile(join(dir, 'journal'), '');
  const other = await writtenJournal(dir, 3);
  const swapped = Buffer.concat([
    other.bytes.subarray(0, headerBytes),
    one.bytes.subarray(headerBytes, headerBytes + journalCountBytes),
    other.bytes.subarray(headerBytes + journalCountBytes),
  ]);
  t.throws(() => decodeJournal(magic, masterKey, swapped, 'journal'), { message: /no valid record count/ });
});

test('a journal written before the count (QPOOLJN1) is read without one', (t) => {
  const oldMagic = 'QPOOLJN1';
  const fileSalt = newFileSalt();
  const key = fileKey(masterKey, fileSalt, oldMagic);
  const records = [randomBytes(20), randomBytes(70)];
  const pieces: Buffer[] = [encodeHeader(oldMagic, { kdf: newKdfParams(), fileSalt })];
  records.forEach((record, index) => {
    const length = Buffer.alloc(8);
    length.writeUInt32BE(record.length + 16);
    length.writeUInt32BE(~(record.length + 16) >>> 0, 4);
    pieces.push(length, ...seal(key, sequenceNonce(index), [record], length));
  });
  t.deepEqual(decodeJournal(oldMagic, masterKey, Buffer.concat(pieces), 'old journal', false), { records, incompleteTailBytes: 0 });
});
