import test from 'ava';
import { randomBytes } from 'node:crypto';
import { LineParser } from '../../../actors/qpool/diode-receiver/line-parser.js';
import type { ValueRecord } from '../../../actors/qpool/values/record.js';
import { recordsOf } from '../../helpers/qpool.js';

const sources = new Set(['keyed', 'legacy'] as const);

function record(source: 'keyed' | 'legacy' = 'legacy'): ValueRecord {
  return { value: randomBytes(128).toString('hex'), timestamp: '2026-11-22T10:00:00.000Z', source };
}

function stream(records: readonly ValueRecord[]): Buffer {
  return Buffer.from(records.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
}

test('a stream chopped at any single offset parses the same', (t) => {
  const records = [record(), record('keyed'), record()];
  const bytes = stream(records);
  for (let split = 0; split <= bytes.length; split++) {
    const parser = new LineParser(sources);
    const first = parser.feed(bytes.subarray(0, split));
    const second = parser.feed(bytes.subarray(split));
    t.deepEqual([...recordsOf(first.values), ...recordsOf(second.values)], records, `split at ${split}`);
    t.is(first.damaged.length + second.damaged.length, 0);
  }
});

test('a stream fed one byte at a time parses the same', (t) => {
  const records = [record(), record()];
  const bytes = stream(records);
  const parser = new LineParser(sources);
  const got: ValueRecord[] = [];
  for (let index = 0; index < bytes.length; index++) got.push(...recordsOf(parser.feed(bytes.subarray(index, index + 1)).values));
  t.deepEqual(got, records);
});

test('a damaged line costs that line only; parsing resumes at the next newline', (t) => {
  const [a, b, c] = [record(), record(), record()];
  const damaged = Buffer.from(JSON.stringify(b)).subarray(0, 100);
  const bytes = Buffer.concat([stream([a]), damaged, Buffer.from('\n'), stream([c])]);
  const parsed = new LineParser(sources).feed(bytes);
  t.deepEqual(recordsOf(parsed.values), [a, c]);
  t.deepEqual(parsed.damaged, ['not JSON']);
});

test('each field is validated', (t) => {
  const parser = new LineParser(sources);
  const good = record();
  const lines = [
    { ...good, value: good.value.toUpperCase() },
    { ...good, value: good.value.slice(2) },
    { ...good, timestamp: 'yesterday' },
    { ...good, timestamp: '2026-13-45T99:00:00Z' },
    { ...good, source: 'demo' },
    { ...good, extra: 1 },
  ];
  const parsed = parser.feed(Buffer.from(lines.map((line) => `${JSON.stringify(line)}\n`).join('')));
  t.is(parsed.values.length, 0);
  t.deepEqual(parsed.damaged, [
    'value is not 256 lowercase hex characters',
    'value is not 256 lowercase hex characters',
    'timestamp is not an ISO 8601 time',
    'timestamp is not an ISO 8601 time',
    'unknown source "demo"',
    'unexpected field extra',
  ]);
});

test('random bytes never crash the parser, and a valid line after them is read', (t) => {
  const parser = new LineParser(sources);
  for (let round = 0; round < 200; round++) parser.feed(randomBytes(1 + ((round * 37) % 3000)));
  t.true(parser.heldBytes <= 1024);
  const good = record();
  const parsed = parser.feed(Buffer.concat([Buffer.from('\n'), stream([good])]));
  t.deepEqual(recordsOf(parsed.values), [good]);
});

test('an endless line is dropped without being kept in memory', (t) => {
  const parser = new LineParser(sources);
  for (let round = 0; round < 100; round++) parser.feed(Buffer.alloc(10_000, 0x61));
  t.true(parser.heldBytes <= 1024);
  const good = record();
  const parsed = parser.feed(Buffer.concat([Buffer.from('\n'), stream([good])]));
  t.deepEqual(parsed.damaged, ['longer than 1024 bytes']);
  t.deepEqual(recordsOf(parsed.values), [good]);
});
