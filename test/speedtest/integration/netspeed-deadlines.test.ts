// The client gives up: against servers that never connect, never answer or stop mid-transfer, it
// exits 1 once its deadline has passed, with a message naming the phase and what it waited for.
import test from 'ava';
import { startStallingServer, startUnconnectableServer } from '../../helpers/stalling-server.js';
import { projectPath, runToEnd } from '../../helpers/process.js';

/** Runs the client with `--timeout seconds`; resolves with its outcome and how long it ran. */
async function clientWithTimeout(server: string, seconds: number, ...args: string[]) {
  const startedAt = performance.now();
  const result = await runToEnd(process.execPath, [projectPath('dist/bin/netspeed.js'), server, '--timeout', String(seconds), ...args]);
  return { ...result, seconds: (performance.now() - startedAt) / 1000 };
}

test('a server that accepts and never answers: the first-byte deadline of the server check', async (t) => {
  const server = await startStallingServer(t, 'accept');
  const result = await clientWithTimeout(server, 1, '-c');
  t.is(result.code, 1);
  t.is(result.stderr, `netspeed: server check: http://${server} accepted the request but sent no answer within 1 s\n`);
  t.is(result.stdout, '');
  t.true(result.seconds >= 1, 'it waited for the deadline');
});

test('a port that never completes a connection: the connect deadline', async (t) => {
  const server = await startUnconnectableServer(t);
  const result = await clientWithTimeout(server, 1, '--json');
  t.is(result.code, 1);
  t.is(result.stderr, `netspeed: server check: could not connect to http://${server} within 1 s\n`);
  t.is(result.stdout, '');
});

// The stalling server answers the check and the pings at once, from this process; the deadline
// leaves them ample time, and only the transfer that stops can miss it.
test('a download that stops after its headers and part of its body: the stall deadline', async (t) => {
  const server = await startStallingServer(t, 'download');
  const result = await clientWithTimeout(server, 3, '-c');
  t.is(result.code, 1);
  t.is(result.stderr, `netspeed: download: the answer from http://${server} stalled: no data for 3 s\n`);
  t.true(result.seconds >= 3, 'it waited for the deadline');
});

test('an upload whose body the server stops reading: the upload deadline', async (t) => {
  const server = await startStallingServer(t, 'upload');
  const result = await clientWithTimeout(server, 3, '-c');
  t.is(result.code, 1);
  t.regex(
    result.stderr,
    new RegExp(`^netspeed: upload: http://${server} (took no data for 3 s \\(stalled while sending\\)|accepted the request but sent no answer within 3 s)\\n$`),
  );
});

test('--timeout must be a positive number of seconds', async (t) => {
  const result = await clientWithTimeout('127.0.0.1:1', 0);
  t.is(result.code, 2);
  t.regex(result.stderr, /--timeout <seconds>' argument '0' is invalid\. must be a positive number of seconds/);
});
