// Property tests of the diode stream parser: whatever the transport does to the
// stream (chops it anywhere, mixes in binary noise and endless lines), each good line gives its
// value, each damaged line costs that line alone, and nothing held grows past one line.
import assert from 'node:assert/strict';
import test from 'ava';
import fc from 'fast-check';
import { LineParser, maxLineBytes } from '../../../actors/qpool/diode-receiver/line-parser.js';
import type { ValueRecord } from '../../../actors/qpool/values/record.js';
import { checkProperty, chop } from '../../helpers/fuzz.js';
import { recordsOf } from '../../helpers/qpool.js';

const sources = new Set(['keyed', 'legacy'] as const);
const goodRecord: fc.Arbitrary<ValueRecord> = fc
  .record({
    value: fc.uint8Array({ minLength: 128, maxLength: 128 }).map((bytes) => Buffer.from(bytes).toString('hex')),
    timestamp: fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true }).map((date) => date.toISOString()),
    source: fc.constantFrom('keyed' as const, 'legacy' as const),
  })
  .map((record) => ({ ...record }));

/** A line the parser must refuse: noise without a newline, starting with a byte no JSON starts with. */
const noiseLine = fc
  .uint8Array({ minLength: 0, maxLength: 600 })
  .map((bytes) => Buffer.concat([Buffer.from('#'), Buffer.from(bytes.map((byte) => (byte === 0x0a ? 0x0b : byte)))]));

const hugeLine = fc.integer({ min: maxLineBytes + 1, max: 20_000 }).map((length) => Buffer.alloc(length, 0x7b));

type Line = { kind: 'good'; record: ValueRecord } | { kind: 'noise'; bytes: Buffer } | { kind: 'huge'; bytes: Buffer };

const line: fc.Arbitrary<Line> = fc.oneof(
  { weight: 4, arbitrary: goodRecord.map((record): Line => ({ kind: 'good', record })) },
  { weight: 2, arbitrary: noiseLine.map((bytes): Line => ({ kind: 'noise', bytes })) },
  { weight: 1, arbitrary: hugeLine.map((bytes): Line => ({ kind: 'huge', bytes })) },
);

function lineBytes(entry: Line): Buffer {
  return entry.kind === 'good' ? Buffer.from(JSON.stringify(entry.record)) : entry.bytes;
}

test('a stream of good, noisy and endless lines chopped anywhere: every good value, one refusal per damaged line', (t) => {
  checkProperty(
    t,
    fc.property(fc.array(line, { maxLength: 30 }), fc.array(fc.nat(), { maxLength: 40 }), (lines, cuts) => {
      const bytes = Buffer.concat(lines.flatMap((entry) => [lineBytes(entry), Buffer.from('\n')]));
      const parser = new LineParser(sources);
      const values: ValueRecord[] = [];
      const damaged: string[] = [];
      for (const piece of chop(bytes, cuts)) {
        const parsed = parser.feed(piece);
        values.push(...recordsOf(parsed.values));
        damaged.push(...parsed.damaged);
        assert.ok(parser.heldBytes <= maxLineBytes, `${parser.heldBytes} bytes held`);
      }
      const expectedDamage = lines
        .filter((entry) => entry.kind !== 'good')
        .map((entry) => (entry.kind === 'huge' ? `longer than ${maxLineBytes} bytes` : 'not JSON'));
      assert.deepEqual(
        values,
        lines.flatMap((entry) => (entry.kind === 'good' ? [entry.record] : [])),
      );
      assert.deepEqual(damaged, expectedDamage);
      assert.equal(parser.heldBytes, 0);
    }),
    300,
  );
});

test('binary noise of any length never throws, holds at most one line, and the next good line after a newline is read', (t) => {
  checkProperty(
    t,
    fc.property(fc.array(fc.uint8Array({ maxLength: 4096 }), { maxLength: 20 }), goodRecord, (noise, record) => {
      const parser = new LineParser(sources);
      for (const chunk of noise) {
        parser.feed(chunk);
        assert.ok(parser.heldBytes <= maxLineBytes, `${parser.heldBytes} bytes held`);
      }
      const parsed = parser.feed(Buffer.from(`\n${JSON.stringify(record)}\n`));
      assert.deepEqual(recordsOf(parsed.values).at(-1), record);
    }),
    200,
  );
});

/** Fields of a time that may or may not exist on the calendar. */
const clockFields = fc.record({
  year: fc.integer({ min: 2000, max: 2099 }),
  month: fc.integer({ min: 0, max: 13 }),
  day: fc.integer({ min: 0, max: 32 }),
  hour: fc.integer({ min: 0, max: 25 }),
  minute: fc.integer({ min: 0, max: 60 }),
  second: fc.integer({ min: 0, max: 60 }),
});

function two(value: number): string {
  return String(value).padStart(2, '0');
}

test('a timestamp is accepted only when it names a real instant, and is served as the same instant', (t) => {
  checkProperty(
    t,
    fc.property(goodRecord, clockFields, (record, { year, month, day, hour, minute, second }) => {
      const timestamp = `${year}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}:${two(second)}Z`;
      const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
      // Date.UTC rolls an impossible field over (February 30 is March 2): a real time is one that does not roll.
      const real =
        date.getUTCFullYear() === year &&
        date.getUTCMonth() === month - 1 &&
        date.getUTCDate() === day &&
        date.getUTCHours() === hour &&
        date.getUTCMinutes() === minute &&
        date.getUTCSeconds() === second;
      const parsed = new LineParser(sources).feed(Buffer.from(`${JSON.stringify({ ...record, timestamp })}\n`));
      const served = recordsOf(parsed.values);
      if (real)
        assert.deepEqual(
          served.map((entry) => entry.timestamp),
          [date.toISOString()],
          timestamp,
        );
      else assert.deepEqual(parsed.damaged, ['timestamp is not an ISO 8601 time'], timestamp);
    }),
    500,
  );
});
