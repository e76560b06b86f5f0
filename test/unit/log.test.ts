import test from 'ava';
import { loggerFrom, type LogRecord } from '../../src/log/record.js';
import { redactFields } from '../../src/log/redact.js';
import { LogRing } from '../../src/log/ring.js';

const record = (message: string): LogRecord => ({ time: 0, level: 'info', source: 'test', message });

test('the ring keeps the newest records in order', (t) => {
  const ring = new LogRing(3);
  for (const message of ['a', 'b', 'c', 'd', 'e']) ring.push(record(message));
  t.deepEqual(
    ring.recent().map((entry) => entry.message),
    ['c', 'd', 'e'],
  );
  t.deepEqual(
    ring.recent(2).map((entry) => entry.message),
    ['d', 'e'],
  );
  t.is(ring.size, 3);
});

test('subscribers get every record pushed after they subscribe until they leave', (t) => {
  const ring = new LogRing(10);
  ring.push(record('before'));
  const seen: string[] = [];
  const unsubscribe = ring.subscribe((entry) => seen.push(entry.message));
  ring.push(record('during'));
  unsubscribe();
  ring.push(record('after'));
  t.deepEqual(seen, ['during']);
});

test('secret fields are redacted whatever their case', (t) => {
  t.deepEqual(redactFields({ domain: 'a.example', Token: 'abc', api_key: 'k', passphrase: 'p', count: 3 }), {
    domain: 'a.example',
    Token: '[redacted]',
    api_key: '[redacted]',
    passphrase: '[redacted]',
    count: 3,
  });
});

test('a logger stamps level, source and time', (t) => {
  const written: LogRecord[] = [];
  loggerFrom('pool', (entry) => written.push(entry)).warn('low', { depth: 2 });
  t.like(written[0], { level: 'warn', source: 'pool', message: 'low', fields: { depth: 2 } });
  t.true(typeof written[0]?.time === 'number');
});
