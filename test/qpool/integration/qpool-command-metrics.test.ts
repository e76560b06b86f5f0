// The diode commands on /metrics: a running receive command's memory and CPU, read with
// pidusage, on a real front of `outpost run`; how each run of a command ended, by exit code.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { Registry } from 'prom-client';
import { registerCommandMetrics } from '../../../actors/qpool/command-metrics.js';
import { runSendCommand } from '../../../actors/qpool/diode-sender/send-command.js';
import { DiodeDouble } from '../../helpers/diode-double.js';
import { promtoolCheck, sampleValue } from '../../helpers/metrics-text.js';
import { outpostDir, pollText, startOutpost } from '../../helpers/outpost.js';

const recvHost = (receiveCommand: string[]) => ({
  roles: { recv: { server: { listen: '127.0.0.1:0', receive_command: receiveCommand } } },
  supervisor: { metrics_interval_ms: 200 },
});

test("a running receive command has its memory and CPU on the recv front's /metrics, and promtool passes", async (t) => {
  const double = await DiodeDouble.create(t);
  t.teardown(() => double.cleanup());
  const dir = await outpostDir(t);
  // auto-stream-recv never exits: the command is running at every sample.
  const outpost = await startOutpost(t, dir, recvHost(double.receiveCommand('auto-stream-recv')), 1, double.env);
  const url = outpost.urls[0]!;
  const text = await pollText(`${url}metrics`, (body) => (sampleValue(body, 'outpost_command_memory_bytes', { command: 'diode_receive' }) ?? 0) > 0);
  await promtoolCheck(t, dir, text);
  const memory = sampleValue(text, 'outpost_command_memory_bytes', { command: 'diode_receive', thread: 'recv/diode-receiver' }) ?? 0;
  t.log(`receive command: ${(memory / 2 ** 20).toFixed(1)} MiB resident`);
  // A node process (the double) holds far more than a page and far less than the machine.
  t.true(memory > 1 << 20, `${memory} bytes`);
  const cpu = sampleValue(text, 'outpost_command_cpu_ratio', { command: 'diode_receive' });
  t.not(cpu, undefined);
  t.true(cpu! >= 0);
  t.false(text.includes('outpost_command_exits_total{'), 'no run has ended yet');
});

test('a receive command that exits non-zero is counted by its exit code', async (t) => {
  const dir = await outpostDir(t);
  const outpost = await startOutpost(t, dir, recvHost(['/bin/sh', '-c', 'exit 3']));
  const url = outpost.urls[0]!;
  const text = await pollText(`${url}metrics`, (body) => (sampleValue(body, 'outpost_command_exits_total', { command: 'diode_receive', code: '3' }) ?? 0) >= 1);
  await promtoolCheck(t, dir, text);
  t.is(sampleValue(text, 'outpost_command_exits_total', { code: '0' }), undefined);
});

test('a send command has its memory while it runs; runs are counted by exit code, a run killed at its deadline by its signal, one that could not start as error', async (t) => {
  const registry = new Registry();
  const watch = registerCommandMetrics(registry, 'diode_send');
  const dir = await outpostDir(t);
  const release = join(dir, 'release');
  // Runs until the test creates `release`: sampled while it runs.
  const waiting = runSendCommand(['/bin/sh', '-c', 'cat > /dev/null; while [ ! -e "$0" ]; do sleep 0.05; done', release], 'a batch\n', 60_000, watch);
  const deadline = Date.now() + 20_000;
  let running = await registry.metrics();
  while ((sampleValue(running, 'outpost_command_memory_bytes', { command: 'diode_send' }) ?? 0) === 0) {
    if (Date.now() > deadline) {
      await writeFile(release, '');
      return t.fail(`no memory sample of the running send command in 20 s:\n${running}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    running = await registry.metrics();
  }
  t.true(sampleValue(running, 'outpost_command_cpu_ratio', { command: 'diode_send' })! >= 0);
  await writeFile(release, '');
  t.like(await waiting, { ok: true });
  t.like(await runSendCommand(['/bin/sh', '-c', 'cat > /dev/null'], 'a batch\n', 20_000, watch), { ok: true });
  t.like(await runSendCommand(['/bin/sh', '-c', 'cat > /dev/null; exit 4'], 'a batch\n', 20_000, watch), { ok: false });
  t.like(await runSendCommand(['/bin/sh', '-c', 'exec sleep 60'], 'a batch\n', 300, watch), { ok: false });
  t.like(await runSendCommand(['/no/such/diode-tool', 'stream-send'], 'a batch\n', 20_000, watch), { ok: false });
  const text = await registry.metrics();
  t.is(sampleValue(text, 'outpost_command_exits_total', { command: 'diode_send', code: '0' }), 2);
  t.is(sampleValue(text, 'outpost_command_exits_total', { command: 'diode_send', code: '4' }), 1);
  t.is(sampleValue(text, 'outpost_command_exits_total', { command: 'diode_send', code: 'SIGKILL' }), 1);
  t.is(sampleValue(text, 'outpost_command_exits_total', { command: 'diode_send', code: 'error' }), 1, 'not the -2 (ENOENT) node reports as its code');
  // No child runs now: no memory or CPU sample is left behind by the ended ones.
  t.is(sampleValue(text, 'outpost_command_memory_bytes'), undefined);
  t.is(sampleValue(text, 'outpost_command_cpu_ratio'), undefined);
});
