// The speedtest's and the monitor's own figures on their fronts' /metrics, from real
// fronts of `outpost run`: tests by phase (started, completed) and their bytes; the sampler's
// seconds per tick and the processes it read. promtool checks each text.
import { get } from 'node:http';
import test from 'ava';
import { promtoolCheck, sampleValue } from '../helpers/metrics-text.js';
import { outpostDir, pollText, startOutpost, type RunningOutpost } from '../helpers/outpost.js';

const host = {
  roles: {
    speedtest: { host: '127.0.0.1', port: 0, threads: 1, quiet: true },
    monitor: { host: '127.0.0.1', port: 0, containers: false, interval_seconds: 0.5 },
  },
  supervisor: { metrics_interval_ms: 200 },
};

function frontOf(outpost: RunningOutpost, role: string): string {
  const url = new RegExp(`^${role} +(https?://\\S+/)$`, 'm').exec(outpost.process.stdout())?.[1];
  if (url === undefined) throw new Error(`no ${role} front in:\n${outpost.process.stdout()}`);
  return url;
}

/** Reads the first bytes of a download far larger than it wants, then goes away. */
function brokenOffDownload(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = get(`${url}api/download?size=100000000`, (response) => {
      response.once('data', (chunk: Buffer) => {
        request.destroy();
        resolve(chunk.byteLength);
      });
    });
    request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
  });
}

test('netspeed counts tests by phase, started and completed, and the bytes served and received; promtool passes', async (t) => {
  const dir = await outpostDir(t);
  const outpost = await startOutpost(t, dir, host, 2);
  const url = frontOf(outpost, 'speedtest');
  for (let index = 0; index < 2; index++) t.is((await fetch(`${url}api/ping`)).status, 200);
  const download = await fetch(`${url}api/download?size=1500000`);
  t.is((await download.arrayBuffer()).byteLength, 1_500_000);
  const upload = await fetch(`${url}api/upload`, { method: 'POST', body: new Uint8Array(700_000) });
  t.is(upload.status, 200);
  await brokenOffDownload(url);
  const text = await pollText(
    `${url}metrics`,
    (body) =>
      sampleValue(body, 'outpost_speedtest_tests_started_total', { phase: 'download' }) === 2 &&
      sampleValue(body, 'outpost_speedtest_tests_completed_total', { phase: 'upload' }) === 1,
  );
  await promtoolCheck(t, dir, text);
  t.is(sampleValue(text, 'outpost_speedtest_tests_started_total', { phase: 'ping' }), 2);
  t.is(sampleValue(text, 'outpost_speedtest_tests_completed_total', { phase: 'ping' }), 2);
  // The download broken off began and never completed.
  t.is(sampleValue(text, 'outpost_speedtest_tests_completed_total', { phase: 'download' }), 1);
  t.is(sampleValue(text, 'outpost_speedtest_tests_started_total', { phase: 'upload' }), 1);
  t.is(sampleValue(text, 'outpost_speedtest_received_bytes_total'), 700_000);
  // The whole download, and of the one broken off what was handed to the socket: at least its first
  // chunk, at most a few of the front's megabyte writes, never the 100 MB it announced.
  const served = sampleValue(text, 'outpost_speedtest_served_bytes_total') ?? 0;
  t.log(`served ${served} bytes`);
  t.true(served > 1_500_000 && served <= 1_500_000 + 8_000_000, `${served}`);
  t.is(sampleValue(text, 'outpost_speedtest_tests_started_total', { role: 'speedtest', thread: 'speedtest/http-front' }), 2);
});

test("the monitor gives the sampler's seconds per tick, counters and scans apart, and the processes it read; promtool passes", async (t) => {
  const dir = await outpostDir(t);
  const outpost = await startOutpost(t, dir, host, 2);
  const url = frontOf(outpost, 'monitor');
  // A snapshot asked for starts full scans for a while (the sampler scans only when watched).
  t.is((await fetch(`${url}api/snapshot`)).status, 200);
  const text = await pollText(
    `${url}metrics`,
    (body) =>
      (sampleValue(body, 'outpost_monitor_sample_duration_seconds_count', { kind: 'scan' }) ?? 0) >= 2 &&
      (sampleValue(body, 'outpost_monitor_sample_duration_seconds_count', { kind: 'counters' }) ?? 0) >= 2,
  );
  await promtoolCheck(t, dir, text);
  const scanSeconds = sampleValue(text, 'outpost_monitor_sample_duration_seconds_sum', { kind: 'scan', thread: 'monitor/sampler' }) ?? 0;
  t.true(scanSeconds > 0, `${scanSeconds}`);
  t.is(
    sampleValue(text, 'outpost_monitor_sample_duration_seconds_bucket', { kind: 'scan', le: '+Inf' }),
    sampleValue(text, 'outpost_monitor_sample_duration_seconds_count', { kind: 'scan' }),
  );
  // This test's own node processes at least (outpost, ava's worker) are among those read.
  const processes = sampleValue(text, 'outpost_monitor_processes_sampled', { thread: 'monitor/sampler' }) ?? 0;
  t.log(`${processes} processes, scans ${(scanSeconds * 1000).toFixed(1)} ms in all`);
  t.true(processes >= 2, `${processes}`);
});
