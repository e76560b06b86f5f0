// The diode receiver's loop without threads or processes: a scripted receive command, a pool that
// can be slow to load, go away or refuse, and a manual clock for the pauses.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { DamagedLineLog } from '../../../actors/qpool/diode-receiver/damaged-lines.js';
import { LineParser } from '../../../actors/qpool/diode-receiver/line-parser.js';
import { damagedLineLogIntervalMs, Receiver } from '../../../actors/qpool/diode-receiver/logic.js';
import type { ReceiveRun } from '../../../actors/qpool/diode-receiver/receive-command.js';
import type { IngestResult } from '../../../actors/qpool/pool/protocol.js';
import { asBuffer, entryCount, entryHex } from '../../../actors/qpool/values/batch.js';
import { ManualClock } from '../../../src/actor/clock.js';
import { loggerFrom, type LogRecord } from '../../../src/log/record.js';
import { valueLines } from '../../helpers/qpool.js';

const timing = { quickEmptyMs: 1000, initialBackoffMs: 1000, maxBackoffMs: 30_000 };

function freshValues(count: number): string[] {
  return Array.from({ length: count }, () => randomBytes(128).toString('hex'));
}

/** Lets every settled promise run its reactions (the loop awaits several in a row). */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** A pool as the receiver sees it: values it keeps, and whether it is there. */
class FakePool {
  readonly values = new Set<string>();
  /** `loading`: readyToStore answers once `load()` is called; `gone`: calls fail as a stopped actor's do. */
  state: 'loading' | 'ready' | 'cannot-store' | 'gone' = 'ready';
  ingestCalls = 0;
  private loaded: (() => void) | undefined;

  poolReady(): Promise<boolean> {
    if (this.state === 'gone') return Promise.reject(new Error('actor recv/pool stopped'));
    if (this.state === 'loading') return new Promise((resolve) => (this.loaded = () => resolve(true)));
    return Promise.resolve(this.state === 'ready');
  }

  load(): void {
    this.state = 'ready';
    this.loaded?.();
  }

  ingest(batch: Buffer): Promise<IngestResult> {
    this.ingestCalls++;
    if (this.state === 'gone') return Promise.reject(new Error('actor recv/pool stopped'));
    const result = { added: 0, duplicates: 0, evicted: 0 };
    const bytes = asBuffer(batch);
    for (let index = 0; index < entryCount(bytes); index++) {
      const value = entryHex(bytes, index);
      if (this.values.has(value)) {
        result.duplicates++;
      } else {
        this.values.add(value);
        result.added++;
      }
    }
    return Promise.resolve(result);
  }
}

/** A receive command whose every run prints what `output` returns for it, in the given pieces, and exits 0. */
class ScriptedCommand {
  runs = 0;
  kills = 0;
  constructor(private readonly output: (run: number) => string[]) {}

  run(onChunk: (chunk: Buffer) => void): ReceiveRun {
    const pieces = this.output(this.runs++);
    let killed = false;
    const ended = (async () => {
      let bytes = 0;
      for (const piece of pieces) {
        if (killed) break;
        bytes += piece.length;
        onChunk(Buffer.from(piece));
        // The pool's answer to this piece comes before the next piece, as a pipe's next read would.
        await new Promise((resolve) => setImmediate(resolve));
      }
      return { bytes, durationMs: 5, code: killed ? null : 0, signal: killed ? ('SIGKILL' as const) : null, stderr: '' };
    })();
    return {
      ended,
      kill: () => {
        killed = true;
        this.kills++;
      },
    };
  }
}

function receiver(command: ScriptedCommand, pool: FakePool) {
  const logs: LogRecord[] = [];
  const clock = new ManualClock(Date.parse('2026-11-22T12:00:00Z'));
  const log = loggerFrom('recv/diode-receiver', (record) => logs.push(record));
  const parser = new LineParser(new Set(['keyed', 'legacy'] as const));
  const loop = new Receiver(timing, {
    run: (onChunk) => command.run(onChunk),
    ingest: (values) => pool.ingest(values),
    poolReady: () => pool.poolReady(),
    parser,
    clock,
    log,
  });
  void loop.loop();
  return { loop, logs, clock };
}

test('the receive command is not run before the pool has loaded, nor while it is gone; nothing read is lost', async (t) => {
  const batch = freshValues(20);
  const command = new ScriptedCommand((run) => (run === 0 ? [valueLines(batch)] : []));
  const pool = new FakePool();
  pool.state = 'loading';
  const { loop, logs, clock } = receiver(command, pool);
  await settle();
  clock.advance(60_000);
  await settle();
  t.is(command.runs, 0, 'not run while the pool loads');
  pool.load();
  await settle();
  t.true(command.runs >= 1);
  t.is(pool.values.size, 20);

  // The pool stops (a fatal error, or a restart): no run until it is back.
  pool.state = 'gone';
  clock.advance(timing.maxBackoffMs);
  await settle();
  const runsWhileGone = command.runs;
  for (let second = 0; second < 60; second++) {
    clock.advance(1000);
    await settle();
  }
  t.is(command.runs, runsWhileGone, 'not run while the pool is gone');
  t.is(logs.filter((record) => record.message.startsWith('the pool cannot store values')).length, 1, 'one line for the spell');
  pool.state = 'ready';
  clock.advance(1000);
  await settle();
  t.true(command.runs > runsWhileGone);
  t.true(logs.some((record) => record.message === 'the pool can store values again; receiving resumes'));
  loop.stop();
});

test('a pool whose files take no writes is not fed: the command waits', async (t) => {
  const command = new ScriptedCommand(() => [valueLines(freshValues(3))]);
  const pool = new FakePool();
  pool.state = 'cannot-store';
  const { loop, logs, clock } = receiver(command, pool);
  for (let second = 0; second < 10; second++) {
    clock.advance(1000);
    await settle();
  }
  t.is(command.runs, 0);
  t.regex(logs.find((record) => record.level === 'warn')?.message ?? '', /the pool cannot store values \(its files do not take writes\)/);
  pool.state = 'ready';
  clock.advance(1000);
  await settle();
  t.true(command.runs > 0);
  loop.stop();
});

test('a pool that goes away during a run: the command is ended, and what it printed is handed over once the pool is back', async (t) => {
  const first = freshValues(10);
  const second = freshValues(10);
  const pool = new FakePool();
  const command = new ScriptedCommand((run) => {
    if (run > 0) return [];
    return [valueLines(first), valueLines(second), valueLines(freshValues(10))];
  });
  // The pool goes between the first and the second piece.
  const ingest = pool.ingest.bind(pool);
  pool.ingest = (batch) => {
    const answer = ingest(batch);
    if (pool.ingestCalls === 1) pool.state = 'gone';
    return answer;
  };
  const { loop, logs, clock } = receiver(command, pool);
  await settle();
  t.is(command.kills, 1, 'the command was ended');
  t.is(pool.values.size, 10);
  t.regex(logs.find((record) => record.level === 'warn')?.message ?? '', /the pool did not take 10 values .*held/);
  clock.advance(5000);
  await settle();
  t.is(command.runs, 1, 'no new run while the pool is gone');
  pool.state = 'ready';
  clock.advance(1000);
  await settle();
  t.deepEqual([...pool.values].sort(), [...first, ...second].sort(), 'what the killed run printed reached the pool');
  t.true(logs.some((record) => record.message === 'handed 10 held values to the pool'));
  loop.stop();
});

test('a run that brings only values already seen is followed by the pause an empty run gets', async (t) => {
  // A replaying command: the same lines, five of them damaged, on every run.
  const lines = valueLines(freshValues(20)) + 'not json\n'.repeat(5);
  const command = new ScriptedCommand(() => [lines]);
  const { loop, logs, clock } = receiver(command, new FakePool());
  await settle();
  // The first run brought 20 values: the second follows at once, brings none, and the pauses begin.
  t.is(command.runs, 2);
  const startedAt = clock.now();
  const runsAt: number[] = [];
  while (clock.now() - startedAt < 120_000) {
    const before = command.runs;
    clock.advance(100);
    await settle();
    if (command.runs > before) runsAt.push(clock.now() - startedAt);
  }
  t.deepEqual(runsAt, [1000, 3000, 7000, 15_000, 31_000, 61_000, 91_000]);
  t.is(logs.filter((record) => record.level === 'info' && record.message.startsWith('receive command returned')).length, 1, 'the first of the spell at info');
  t.regex(
    logs.find((record) => record.message.startsWith('receive command returned'))?.message ?? '',
    /returned \d+ bytes and no new value \(20 already seen, 5 damaged lines\)/,
  );
  // 45 damaged lines in 9 runs over two minutes: one line at once, then at most one summary per interval.
  const warnings = logs.filter((record) => record.level === 'warn');
  t.true(warnings.every((record) => record.message.startsWith('skipped a damaged line')));
  t.true(warnings.length <= 2 + Math.ceil(120_000 / damagedLineLogIntervalMs), `${warnings.length} warnings`);
  t.regex(warnings[1]?.message ?? '', /^skipped a damaged line \d+ more times in the last 10s: not JSON \(\d+\)$/);
  loop.stop();
});

test('damaged lines: the first at once, the rest summarised by reason once the interval is over', async (t) => {
  const logs: LogRecord[] = [];
  const clock = new ManualClock(0);
  const damaged = new DamagedLineLog(10_000, { clock, log: loggerFrom('test', (record) => logs.push(record)) });
  damaged.skipped('not JSON');
  for (let index = 0; index < 99; index++) damaged.skipped(index % 3 === 0 ? 'unknown source "x"' : 'not JSON');
  t.deepEqual(
    logs.map((record) => record.message),
    ['skipped a damaged line: not JSON'],
  );
  clock.advance(10_000);
  await settle();
  t.deepEqual(logs.at(-1)?.message, 'skipped a damaged line 99 more times in the last 10s: unknown source "x" (33), not JSON (66)');
  t.is(logs.length, 2);
  // A quiet interval: the next one is logged at once again.
  clock.advance(20_000);
  damaged.skipped('not JSON');
  t.is(logs.length, 3);
  t.is(logs.at(-1)?.message, 'skipped a damaged line: not JSON');
});
