import test from 'ava';
import { randomBytes } from 'node:crypto';
import { readProviderAnswer } from '../../../actors/qpool/collector/provider.js';
import { sliceValues } from '../../../actors/qpool/collector/values.js';

function keyedBody(length: number, size: number, data = Array.from({ length }, () => randomBytes(2 * size).toString('hex'))): string {
  return JSON.stringify({ success: true, type: 'hex16', length: String(length), data });
}

function legacyBody(length: number, size: number, data = Array.from({ length }, () => randomBytes(size).toString('hex'))): string {
  return JSON.stringify({ type: 'string', length, size, data, success: true });
}

function valuesFrom(source: 'keyed' | 'legacy', length: number, size: number, body: string) {
  const answer = readProviderAnswer(source, { length, size }, 200, body);
  if (!answer.ok) throw new Error(answer.reason);
  return { bytes: answer.bytes, batch: sliceValues(answer.bytes, source, new Date('2026-11-22T10:00:00.000Z')) };
}

test('keyed length 1024 size 10 yields exactly 160 values of the response bytes', (t) => {
  const { bytes, batch } = valuesFrom('keyed', 1024, 10, keyedBody(1024, 10));
  t.is(bytes.length, 20_480);
  t.is(batch.count, 160);
  t.is(batch.discardedBytes, 0);
  const lines = batch.lines
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { value: string; timestamp: string; source: string });
  t.is(lines.length, 160);
  t.is(lines.map((line) => line.value).join(''), bytes.toString('hex'));
  for (const line of lines) {
    t.regex(line.value, /^[0-9a-f]{256}$/);
    t.is(line.source, 'keyed');
    t.is(line.timestamp, '2026-11-22T10:00:00.000Z');
  }
});

test('legacy length 1024 size 64 yields 512 values', (t) => {
  const { batch } = valuesFrom('legacy', 1024, 64, legacyBody(1024, 64));
  t.is(batch.count, 512);
  t.is(batch.discardedBytes, 0);
});

test('odd sizes discard the remainder and count it', (t) => {
  const legacy = valuesFrom('legacy', 10, 100, legacyBody(10, 100));
  t.is(legacy.batch.count, 7);
  t.is(legacy.batch.discardedBytes, 1000 - 7 * 128);
  t.is(
    legacy.batch.lines
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { value: string }).value)
      .join(''),
    legacy.bytes.subarray(0, 7 * 128).toString('hex'),
  );
  const keyed = valuesFrom('keyed', 3, 7, keyedBody(3, 7));
  t.is(keyed.batch.count, 0);
  t.is(keyed.batch.discardedBytes, 42);
});

test('uppercase hex from a provider becomes lowercase values', (t) => {
  const data = Array.from({ length: 2 }, () => randomBytes(64).toString('hex').toUpperCase());
  const { batch } = valuesFrom('legacy', 2, 64, legacyBody(2, 64, data));
  t.is(batch.lines, `{"value":"${data.join('').toLowerCase()}","timestamp":"2026-11-22T10:00:00.000Z","source":"legacy"}\n`);
});

test('responses are checked strictly against each API shape', (t) => {
  const reason = (source: 'keyed' | 'legacy', status: number, body: string, length = 2, size = 2) => {
    const answer = readProviderAnswer(source, { length, size }, status, body);
    return answer.ok ? 'ok' : answer.reason;
  };
  t.is(reason('keyed', 200, keyedBody(2, 2)), 'ok');
  t.is(reason('legacy', 200, legacyBody(2, 2)), 'ok');
  // The keyed API sends length as a string; a number there is not that API.
  t.regex(reason('keyed', 200, JSON.stringify({ success: true, type: 'hex16', length: 2, data: ['aaaaaaaa', 'bbbbbbbb'] })), /length is 2, "2" expected/);
  t.regex(
    reason('legacy', 200, JSON.stringify({ type: 'hex16', length: 2, size: 2, data: ['aaaa', 'bbbb'], success: true })),
    /type is "hex16", "string" expected/,
  );
  t.regex(reason('legacy', 200, legacyBody(2, 2, ['aaaa'])), /data has 1 blocks, 2 were asked for/);
  t.regex(reason('keyed', 200, keyedBody(2, 2, ['aaaaaaaa', 'aaaa'])), /data\[1\] has 4 hex characters, 8 expected/);
  t.regex(reason('legacy', 200, legacyBody(2, 2, ['aaaa', 'zzzz'])), /data\[1\] is not hex/);
  t.regex(reason('legacy', 200, JSON.stringify({ success: false })), /provider reported failure/);
  t.regex(reason('legacy', 200, '{"type":"str'), /not JSON/);
  t.regex(reason('keyed', 403, '{"message":"Forbidden"}'), /^HTTP 403 \{"message":"Forbidden"\}: the API key was refused/);
  t.regex(reason('keyed', 429, '{"message":"Limit Exceeded"}'), /^HTTP 429 .*Limit Exceeded.*quota/);
  t.is(
    reason('legacy', 500, 'The QRNG API is limited to 1 requests per minute. For more requests, please visit https://quantumnumbers.anu.edu.au'),
    'HTTP 500: The QRNG API is limited to 1 requests per minute. For more requests, please visit https://quantumnumbers.anu.edu.au',
  );
});
