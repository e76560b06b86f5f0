import test from 'ava';
import { randomBytes } from 'node:crypto';
import { ManualClock } from '../../../src/actor/clock.js';
import { Collector } from '../../../actors/qpool/collector/logic.js';
import type { SourceSettings } from '../../../actors/qpool/collector/protocol.js';
import type { ValueBatch } from '../../../actors/qpool/collector/values.js';
import type { LogRecord } from '../../../src/log/record.js';
import { loggerFrom } from '../../../src/log/record.js';

const keyed: SourceSettings = { source: 'keyed', url: 'http://127.0.0.1:1/', length: 1024, size: 10, intervalMs: 28_800_000, apiKey: 'k' };
const legacy: SourceSettings = { source: 'legacy', url: 'http://127.0.0.1:1/API/jsonI.php', length: 1024, size: 64, intervalMs: 3_600_000 };

function harness(options: { lastKeyed?: number; fail?: Set<string> } = {}) {
  const clock = new ManualClock(Date.parse('2026-11-22T00:00:00Z'));
  const requests: { url: string; at: number }[] = [];
  const batches: ValueBatch[] = [];
  const logs: LogRecord[] = [];
  const ledger = { last: options.lastKeyed, recorded: [] as number[] };
  const collector = new Collector([keyed, legacy], 180_000, {
    clock,
    fetchText(url) {
      requests.push({ url, at: clock.now() });
      const isKeyed = !url.includes('jsonI');
      if (options.fail?.has(isKeyed ? 'keyed' : 'legacy')) return Promise.resolve({ status: 500, body: 'The QRNG API is limited to 1 requests per minute.' });
      const url_ = new URL(url);
      const length = Number(url_.searchParams.get('length'));
      const size = Number(url_.searchParams.get('size'));
      const data = Array.from({ length }, () => randomBytes(isKeyed ? 2 * size : size).toString('hex'));
      const body = isKeyed ? { success: true, type: 'hex16', length: String(length), data } : { type: 'string', length, size, data, success: true };
      return Promise.resolve({ status: 200, body: JSON.stringify(body) });
    },
    randomBytes: (size) => randomBytes(size),
    ledger: {
      lastRequest: () => Promise.resolve(ledger.last),
      record: (at) => {
        ledger.recorded.push(at);
        ledger.last = at;
        return Promise.resolve();
      },
    },
    send: (batch) => batches.push(batch),
    log: loggerFrom('collector', (record) => logs.push(record)),
  });
  return { clock, collector, requests, batches, logs, ledger };
}

async function settle(): Promise<void> {
  for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
}

test('both sources are polled at start, then each on its own interval, values tagged by origin', async (t) => {
  const { clock, collector, requests, batches } = harness();
  await collector.start();
  t.is(requests.length, 2);
  t.deepEqual(batches.map((batch) => batch.count).sort(), [160, 512]);
  const sources = (batch: ValueBatch) =>
    new Set(
      batch.lines
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { source: string }).source),
    );
  t.deepEqual(
    batches
      .map(sources)
      .map((set) => [...set].join())
      .sort(),
    ['keyed', 'legacy'],
  );
  requests.length = 0;
  for (let hour = 1; hour < 8; hour++) {
    clock.advance(3_600_000);
    await settle();
  }
  clock.advance(3_600_000 - 1);
  await settle();
  t.is(requests.filter((request) => request.url.includes('jsonI')).length, 7);
  t.is(requests.filter((request) => !request.url.includes('jsonI')).length, 0);
  clock.advance(1);
  await settle();
  t.is(requests.filter((request) => request.url.includes('jsonI')).length, 8);
  t.is(requests.filter((request) => !request.url.includes('jsonI')).length, 1);
  collector.stop();
});

test('a restart within the keyed interval spends no keyed request until the interval has passed', async (t) => {
  const start = Date.parse('2026-11-22T00:00:00Z');
  const { clock, collector, requests, ledger, logs } = harness({ lastKeyed: start - 1_000_000 });
  await collector.start();
  t.deepEqual(
    requests.map((request) => request.url.includes('jsonI')),
    [true],
  );
  t.true(logs.some((record) => /keyed: the last request was less than 28800s ago; the next is in 27800s/.test(record.message)));
  clock.advance(27_800_000 - 1);
  await settle();
  t.false(requests.some((request) => !request.url.includes('jsonI')));
  clock.advance(1);
  await settle();
  t.is(requests.filter((request) => !request.url.includes('jsonI')).length, 1);
  t.deepEqual(ledger.recorded, [start + 27_800_000]);
  collector.stop();
});

test('a failed legacy request logs the provider text and the every-source line, and the next cycle carries on', async (t) => {
  const fail = new Set(['keyed', 'legacy']);
  const { clock, collector, logs, batches } = harness({ fail });
  await collector.start();
  t.true(logs.some((record) => record.message === 'legacy request failed: HTTP 500: The QRNG API is limited to 1 requests per minute.'));
  t.true(logs.some((record) => record.level === 'error' && record.message === 'every ANU source tried failed: keyed, legacy'));
  t.is(batches.length, 0);
  fail.delete('legacy');
  clock.advance(3_600_000);
  await settle();
  t.is(batches.length, 1);
  collector.stop();
});
