// The terminal client against a real server on loopback: every output form, field by field.
import { createServer } from 'node:http';
import test from 'ava';
import { startNetspeedServer } from '../helpers/netspeed.js';
import { projectPath, runToEnd } from '../helpers/process.js';

const client = (...args: string[]) => runToEnd(process.execPath, [projectPath('dist/bin/netspeed.js'), ...args]);

test('--json has the spec fields in their forms, and the detail', async (t) => {
  const server = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '-q']);
  const hostPort = server.url.replace(/^http:\/\//, '').replace(/\/$/, '');
  const result = await client(hostPort, '--json');
  t.is(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout) as Record<string, unknown>;
  t.is(report.server, server.url, 'no scheme means http://');
  t.is(typeof report.ping_ms, 'number');
  t.is(report.ping, `${(report.ping_ms as number).toFixed(1)} ms`);
  t.true(Number.isInteger(report.download_bps) && (report.download_bps as number) > 1e6);
  t.is(report.download, `${((report.download_bps as number) / 1e6).toFixed(2)} Mbps`);
  t.true(Number.isInteger(report.upload_bps) && (report.upload_bps as number) > 1e6);
  t.is(report.upload, `${((report.upload_bps as number) / 1e6).toFixed(2)} Mbps`);
  t.is(report.download_bytes, 25_000_000);
  t.is(report.upload_bytes, 10_000_000);
  for (const field of ['jitter_ms', 'ping_min_ms', 'ping_median_ms', 'download_seconds', 'upload_seconds']) t.is(typeof report[field], 'number', field);
  t.true((report.ping_min_ms as number) <= (report.ping_median_ms as number));
  t.true(report.download_loaded_latency_ms === null || typeof report.download_loaded_latency_ms === 'number');
});

test('--compact is one line in the spec form; `client` may be named', async (t) => {
  const server = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '-q']);
  const result = await client('client', server.url, '-c');
  t.is(result.code, 0, result.stderr);
  t.regex(result.stdout, /^ping \d+\.\d ms \/ down \d+\.\d{2} Mbps \/ up \d+\.\d{2} Mbps\n$/);
});

test('normal output names the server and shows the result with a progress bar', async (t) => {
  const server = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '-n', 'Loopback', '-q']);
  const result = await client(server.url);
  t.is(result.code, 0, result.stderr);
  t.regex(result.stdout, /netspeed → http:\/\/127\.0\.0\.1:\d+\/ \(Loopback, netspeed 0\.1\.0-beta\.1\)/);
  t.regex(result.stdout, /Download {3}\[█+\] 100%/);
  t.regex(result.stdout, /Ping +\d+\.\d ms {3}min [\d.]+ · median [\d.]+ · jitter [\d.]+ ms/);
  t.regex(result.stdout, /Upload +\d+\.\d{2} Mbps/);
  t.regex(result.stdout, /Latency under load/);
  t.false(result.stdout.includes('\u001b['), 'no colour codes when stdout is not a terminal');
});

test('an unreachable server or one that is not netspeed is a clear error and exit 1', async (t) => {
  const refused = await client('127.0.0.1:1', '-c');
  t.is(refused.code, 1);
  t.regex(refused.stderr, /netspeed: cannot reach http:\/\/127\.0\.0\.1:1\/: connection refused/);
  const other = createServer((_request, response) => response.end('<html>not a speed test</html>'));
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  t.teardown(() => other.close());
  const address = other.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const wrong = await client(`127.0.0.1:${port}`, '--json');
  t.is(wrong.code, 1);
  t.regex(wrong.stderr, /is not a netspeed server/);
  t.is(wrong.stdout, '');
  const bad = await client('ftp://example.test', '-c');
  t.is(bad.code, 1);
  t.regex(bad.stderr, /only http:\/\/ and https:\/\/ servers are supported/);
});
