import test from 'ava';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../src/actor/clock.js';
import { DiodeSender } from '../../../actors/qpool/diode-sender/logic.js';
import { runSendCommand, type TransferOutcome } from '../../../actors/qpool/diode-sender/send-command.js';
import { loggerFrom, type LogRecord } from '../../../src/log/record.js';

test('a failing transfer is tried retry_limit times, then dropped with the log line', async (t) => {
  const clock = new ManualClock();
  const logs: LogRecord[] = [];
  let attempts = 0;
  const sender = new DiodeSender(3, 1000, {
    transfer: (): Promise<TransferOutcome> => {
      attempts++;
      return Promise.resolve({ ok: false, reason: 'transfer refused by peer' });
    },
    clock,
    log: loggerFrom('diode-sender', (record) => logs.push(record)),
  });
  sender.enqueue('{"value":"…"}\n', 1);
  for (let step = 0; step < 10; step++) {
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(4000);
  }
  await sender.idle();
  t.is(attempts, 3);
  t.true(logs.some((record) => record.level === 'error' && record.message === 'gave up after 3 attempts; dropped 1 values'));
  t.is(logs.filter((record) => /^diode send attempt \d of 3 failed: transfer refused by peer$/.test(record.message)).length, 3);
});

test('a send command gets the batch on stdin, runs without a shell, and its exit code decides', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'qpool-send-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const out = join(dir, 'got');
  // `$(...)` would run in a shell; as a plain argument it must arrive as written.
  const ok = await runSendCommand(['/bin/sh', '-c', 'cat > "$1"; test "$2" = "\\$(id)"', 'sh', out, '$(id)'], 'hello\n', 5000);
  t.deepEqual(ok, { ok: true });
  const failed = await runSendCommand(['/bin/sh', '-c', 'echo "transfer refused by peer" >&2; exit 3'], 'x', 5000);
  t.deepEqual(failed, { ok: false, reason: '/bin/sh ended with exit code 3: transfer refused by peer' });
  const missing = await runSendCommand(['/nonexistent/diode', 'stream-send'], 'x', 5000);
  t.false(missing.ok);
});

test('a hanging send command is killed at the timeout, with whatever it started', async (t) => {
  const startedAt = performance.now();
  const outcome = await runSendCommand(['/bin/sh', '-c', 'sleep 30 & sleep 30; wait'], 'x', 300);
  t.deepEqual(outcome, { ok: false, reason: 'no answer within 0.3s (diode.timeout_seconds); killed' });
  t.true(performance.now() - startedAt < 5000);
  const cwdEntries = await readdir('.');
  t.false(
    cwdEntries.some((name) => name.startsWith('qpool')),
    'the sender writes no file',
  );
});
