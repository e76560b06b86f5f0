// The send role's figures: it has no HTTP of its own, so `collect.metrics_port` opens a
// plain listener with /metrics, /healthz and /readyz (loopback unless collect.metrics_host says
// otherwise). A send role of `outpost run` sending through the diode double, whose first three sends
// are refused: values collected by source, send attempts by outcome, the batch given up, the send
// command's exits; promtool passes and a real Prometheus scrapes the listener.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { DiodeDouble } from '../../helpers/diode-double.js';
import { promtoolCheck, sampleValue } from '../../helpers/metrics-text.js';
import { outpostDir, pollText, startOutpost } from '../../helpers/outpost.js';
import { startPrometheus, waitForQuery } from '../../helpers/prometheus.js';

test('the send role serves its figures on collect.metrics_port: collected values, send attempts and give-ups; promtool and a real Prometheus read them', async (t) => {
  const double = await DiodeDouble.create(t);
  t.teardown(() => double.cleanup());
  // Two attempts a batch: the first batch fails both and is given up, the second fails once, then goes.
  double.control({ refuseSends: 3 });
  const dir = await outpostDir(t);
  const outpost = await startOutpost(
    t,
    dir,
    {
      roles: {
        send: {
          anu: { demo: { enabled: true, values: 64, interval_seconds: 1 } },
          collect: { retry_limit: 2, metrics_port: 0 },
          diode: { send_command: double.sendCommand() },
        },
      },
      supervisor: { metrics_interval_ms: 200 },
    },
    1,
    double.env,
  );
  const url = outpost.urls[0]!;
  t.is(new URL(url).hostname, '127.0.0.1', 'the metrics listener is on loopback by default');
  t.deepEqual(await (await fetch(`${url}healthz`)).json(), { status: 'ok' });
  await pollText(`${url}readyz`, (text, status) => status === 200 && text === '{"status":"ready"}');
  t.is((await fetch(`${url}api/random`)).status, 404, 'the listener serves the operations routes only');

  const text = await pollText(
    `${url}metrics`,
    (body) =>
      (sampleValue(body, 'outpost_diode_send_attempts_total', { outcome: 'ok' }) ?? 0) >= 2 &&
      sampleValue(body, 'outpost_diode_send_attempts_total', { outcome: 'failed' }) === 3,
    30_000,
  );
  await promtoolCheck(t, dir, text);
  t.is(sampleValue(text, 'outpost_diode_batches_dropped_total', { reason: 'gave_up' }), 1);
  t.is(sampleValue(text, 'outpost_diode_batches_dropped_total', { reason: 'backlog' }), 0);
  const collected = sampleValue(text, 'outpost_send_values_collected_total', { source: 'demo', thread: 'send/collector' }) ?? 0;
  t.true(collected >= 64 * 3 && collected % 64 === 0, `${collected}`);
  t.is(sampleValue(text, 'outpost_send_provider_errors_total', { source: 'demo' }), 0);
  // The send command's runs by exit code (command-metrics.ts), which had no /metrics to reach before.
  t.is(sampleValue(text, 'outpost_command_exits_total', { command: 'diode_send', code: '1' }), 3);
  t.true((sampleValue(text, 'outpost_command_exits_total', { command: 'diode_send', code: '0' }) ?? 0) >= 2);
  t.is(sampleValue(text, 'outpost_actor_up', { actor: 'send/collector', role: 'send' }), 1);

  const prometheusDir = join(dir, 'prometheus');
  await mkdir(prometheusDir);
  const prometheus = await startPrometheus(
    t,
    prometheusDir,
    `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: send\n    static_configs:\n      - targets: ['${new URL(url).host}']\n`,
  );
  const gaveUp = await waitForQuery(
    prometheus,
    'sum(outpost_diode_batches_dropped_total{job="send",reason="gave_up"})',
    (samples) => samples[0]?.value[1] === '1',
  );
  t.is(gaveUp.length, 1);
  const rate = await waitForQuery(prometheus, 'sum(increase(outpost_send_values_collected_total{job="send"}[1m])) > 0', (samples) => samples.length === 1);
  t.true(Number(rate[0]!.value[1]) > 0);
});
