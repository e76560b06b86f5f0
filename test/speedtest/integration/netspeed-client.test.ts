// The terminal client against a real server on loopback: every output form, field by field.
import { createServer } from 'node:http';
import test from 'ava';
import { makeShapedLink } from '../../helpers/network-namespaces.js';
import { startNetspeedServer } from '../../helpers/netspeed.js';
import { projectPath, runToEnd } from '../../helpers/process.js';

const client = (...args: string[]) => runToEnd(process.execPath, [projectPath('dist/bin/netspeed.js'), ...args]);

test('--json has the spec fields in their forms, and the detail', async (t) => {
  const server = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '-q']);
  const hostPort = server.url.replace(/^http:\/\//, '').replace(/\/$/, '');
  const result = await client(hostPort, '--json');
  t.is(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout) as Record<string, unknown>;
  t.is(report.server, `http://${hostPort}`, 'the address as given, http:// added');
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

test('normal output into a pipe: plain lines, no progress frames, no colour', async (t) => {
  const server = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '-n', 'Loopback', '-q']);
  const result = await client(server.url);
  t.is(result.code, 0, result.stderr);
  const lines = result.stdout.split('\n');
  t.regex(lines[0]!, /^netspeed → http:\/\/127\.0\.0\.1:\d+\/ \(Loopback, netspeed 0\.1\.0-beta\.1\)$/);
  t.regex(result.stdout, /\n {2}Ping +\d+\.\d ms {3}min [\d.]+ · median [\d.]+ · jitter [\d.]+ ms\n/);
  t.regex(result.stdout, /\n {2}Download +\d+\.\d{2} Mbps {3}25\.0 MB in [\d.]+ s\n/);
  t.regex(result.stdout, /\n {2}Upload +\d+\.\d{2} Mbps/);
  t.regex(result.stdout, /Latency under load/);
  t.false(result.stdout.includes('\r'), 'no frame redrawn with \\r');
  t.false(result.stdout.includes('█'), 'no progress bar');
  t.false(result.stdout.includes('\u001b['), 'no colour codes');
});

test('normal output on a terminal: a progress bar redrawn in place, colour', async (t) => {
  const server = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '-q']);
  // script(1) gives the client a pseudo-terminal as its stdout.
  const command = ['env', '-u', 'NO_COLOR', process.execPath, projectPath('dist/bin/netspeed.js'), server.url].map((word) => `'${word}'`).join(' ');
  const result = await runToEnd('script', ['-qec', command, '/dev/null'], { TERM: 'xterm' });
  t.is(result.code, 0, result.stdout);
  t.regex(result.stdout, /\r {2}Download {3}\[█+\] 100%/);
  t.true(result.stdout.includes('\u001b[1m'), 'bold on a terminal');
});

test('-c and -j together are a usage error', async (t) => {
  const result = await client('127.0.0.1:1', '-c', '-j');
  t.is(result.code, 2);
  t.regex(result.stderr, /option '-c, --compact' cannot be used with option '-j, --json'/);
  t.is(result.stdout, '');
});

test('https:// against a plain HTTP server says that TLS failed', async (t) => {
  const server = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '-q']);
  const https = server.url.replace(/^http:/, 'https:');
  const result = await client(https, '-c');
  t.is(result.code, 1);
  t.is(result.stderr, `netspeed: server check: TLS with ${https} failed: the server does not speak TLS (is it a plain http:// server?)\n`);
});

test('an unreachable server or one that is not netspeed is a clear error and exit 1', async (t) => {
  const refused = await client('127.0.0.1:1', '-c');
  t.is(refused.code, 1);
  t.is(refused.stderr, 'netspeed: server check: cannot reach http://127.0.0.1:1: connection refused (is netspeed server running there?)\n');
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
  // A usage error.
  t.is(bad.code, 2);
  t.regex(bad.stderr, /only http:\/\/ and https:\/\/ servers are supported/);
});

test("a bare host means the server's default port 8080", async (t) => {
  // Port 8080 of a namespace the test made, where nothing else can hold it.
  const link = await makeShapedLink(t);
  await startNetspeedServer(t, ['-H', link.server.address, '-q'], link.inNamespace(link.server.namespace));
  const result = await runToEnd('ip', [
    'netns',
    'exec',
    link.client.namespace,
    process.execPath,
    projectPath('dist/bin/netspeed.js'),
    link.server.address,
    '--json',
  ]);
  t.is(result.code, 0, result.stderr);
  t.is((JSON.parse(result.stdout) as { server: string }).server, `http://${link.server.address}:8080`);
});
