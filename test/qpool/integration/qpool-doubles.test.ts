// The qpool test doubles checked against what they stand for: the ANU double against
// the ANU API reference (anu-api.md), the diode double against the spec's diode command rules. A
// double that drifts from the real thing would let qpool pass tests it would fail in the field.
import { spawn } from 'node:child_process';
import test, { type ExecutionContext } from 'ava';
import { keyedRequestsPerMonth, legacyPublishedMsPerKiB, startAnuDouble, type AnuDouble, type AnuDoubleOptions } from '../fixtures/anu/anu-double.js';
import { DiodeDouble } from '../../helpers/diode-double.js';
import { chop } from '../fixtures/diode/emission.js';
import { startProcess } from '../../helpers/process.js';

async function withAnu(options: AnuDoubleOptions, run: (anu: AnuDouble) => Promise<void>): Promise<void> {
  const anu = await startAnuDouble(options);
  try {
    await run(anu);
  } finally {
    await anu.close();
  }
}

const query = (length: number, size: number) => `?length=${length}&type=hex16&size=${size}`;

test('keyed: length as a string, no size, 4 x size lowercase hex per block, bytes recorded', async (t) => {
  await withAnu({}, async (anu) => {
    const response = await fetch(anu.keyedUrl + query(3, 10), { headers: { 'x-api-key': 'test-key' } });
    t.is(response.status, 200);
    t.regex(response.headers.get('content-type') ?? '', /^application\/json/);
    const body = (await response.json()) as Record<string, unknown>;
    t.deepEqual(Object.keys(body).sort(), ['data', 'length', 'success', 'type']);
    t.like(body, { success: true, type: 'hex16', length: '3' });
    const data = body.data as string[];
    t.is(data.length, 3);
    t.true(data.every((block) => /^[0-9a-f]{40}$/.test(block)));
    t.is(anu.responses.length, 1);
    t.like(anu.responses[0], { source: 'keyed' });
    t.deepEqual(anu.responses[0]!.bytes, Buffer.from(data.join(''), 'hex'));
    t.like(anu.requests[0], { source: 'keyed', apiKey: 'test-key', status: 200 });
  });
});

test('keyed: 403 Forbidden without a good key, 429 Limit Exceeded over quota, success false on bad parameters', async (t) => {
  // Four requests with bad parameters and one good one: every request with a good key counts.
  await withAnu({ keyedQuota: 5 }, async (anu) => {
    for (const headers of [{}, { 'x-api-key': 'wrong' }] as Record<string, string>[]) {
      const refused = await fetch(anu.keyedUrl + query(1, 1), { headers });
      t.is(refused.status, 403);
      t.regex(refused.headers.get('content-type') ?? '', /^application\/json/);
      t.is(await refused.text(), '{"message":"Forbidden"}');
    }
    const headers = { 'x-api-key': 'test-key' };
    for (const bad of [query(0, 1), query(1025, 1), query(1, 11), '?length=1&type=uint8']) {
      const answer = await fetch(anu.keyedUrl + bad, { headers });
      t.like(await answer.json(), { success: false }, bad);
    }
    t.is((await fetch(anu.keyedUrl + query(1, 1), { headers })).status, 200);
    const over = await fetch(anu.keyedUrl + query(1, 1), { headers });
    t.is(over.status, 429);
    t.is(await over.text(), '{"message":"Limit Exceeded"}');
    t.is(anu.responses.length, 1);
  });
});

test('legacy: type "string", numeric length and size, 2 x size hex per block', async (t) => {
  await withAnu({}, async (anu) => {
    const response = await fetch(anu.legacyUrl + query(4, 64));
    t.is(response.status, 200);
    const body = (await response.json()) as Record<string, unknown>;
    t.like(body, { type: 'string', length: 4, size: 64, success: true });
    const data = body.data as string[];
    t.is(data.length, 4);
    t.true(data.every((block) => /^[0-9a-f]{128}$/.test(block)));
    t.deepEqual(anu.responses[0]!.bytes, Buffer.from(data.join(''), 'hex'));
    t.is((await fetch(new URL('/elsewhere', anu.legacyUrl))).status, 404);
  });
});

test('legacy: a second request within the interval gets the plain-text 500', async (t) => {
  await withAnu({}, async (anu) => {
    t.is((await fetch(anu.legacyUrl + query(1, 8))).status, 200);
    const limited = await fetch(anu.legacyUrl + query(1, 8));
    t.is(limited.status, 500);
    t.regex(limited.headers.get('content-type') ?? '', /^text\/plain/);
    t.is(await limited.text(), 'The QRNG API is limited to 1 requests per minute. For more requests, please visit https://quantumnumbers.anu.edu.au');
    t.is(anu.responses.length, 1);
  });
});

test('legacy: a request once the interval has passed is answered', async (t) => {
  await withAnu({ legacyMinIntervalMs: 200 }, async (anu) => {
    t.is((await fetch(anu.legacyUrl + query(1, 8))).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 250));
    t.is((await fetch(anu.legacyUrl + query(1, 8))).status, 200);
  });
});

test("legacy: by default an answer takes ANU's published 2 s per KiB", async (t) => {
  await withAnu({}, async (anu) => {
    const started = Date.now();
    const response = await fetch(anu.legacyUrl + query(2, 256)); // 0.5 KiB: 1 s
    await response.arrayBuffer();
    const elapsed = Date.now() - started;
    t.true(elapsed >= 990 && elapsed < 20_000, `took ${elapsed} ms`);
    t.is(legacyPublishedMsPerKiB, 2000);
  });
});

test('keyed: by default the 101st request with a good key in the month is refused 429 Limit Exceeded', async (t) => {
  await withAnu({}, async (anu) => {
    const headers = { 'x-api-key': 'test-key' };
    anu.inject('keyed', 'non-hex');
    const statuses: number[] = [];
    for (let index = 0; index < keyedRequestsPerMonth; index++) statuses.push((await fetch(anu.keyedUrl + query(1, 1), { headers })).status);
    t.true(statuses.every((status) => status === 200));
    t.is(anu.responses.length, keyedRequestsPerMonth - 1, 'the spoiled answer counted against the quota too');
    const over = await fetch(anu.keyedUrl + query(1, 1), { headers });
    t.is(over.status, 429);
    t.is(await over.text(), '{"message":"Limit Exceeded"}');
  });
});

test('an injected fault skips neither the key check nor the rate limit: refused requests leave it queued', async (t) => {
  await withAnu({}, async (anu) => {
    anu.inject('keyed', 'success-false');
    t.is((await fetch(anu.keyedUrl + query(1, 1))).status, 403, 'no key: Forbidden, fault or not');
    t.is((await fetch(anu.keyedUrl + query(1, 1), { headers: { 'x-api-key': 'wrong' } })).status, 403);
    const spoiled = (await (await fetch(anu.keyedUrl + query(1, 1), { headers: { 'x-api-key': 'test-key' } })).json()) as { success: boolean };
    t.false(spoiled.success, 'the first request with a good key gets the fault');

    t.is((await fetch(anu.legacyUrl + query(1, 8))).status, 200);
    anu.inject('legacy', 'html-error');
    const limited = await fetch(anu.legacyUrl + query(1, 8));
    t.is(limited.status, 500, 'within the minute: the plain-text 500, not the fault');
    t.regex(await limited.text(), /limited to 1 requests per minute/);
  });
});

test('legacy: slow answers take the configured time per KiB', async (t) => {
  await withAnu({ latency: { legacyMsPerKiB: 200 } }, async (anu) => {
    const started = Date.now();
    const response = await fetch(anu.legacyUrl + query(8, 256)); // 2 KiB
    await response.arrayBuffer();
    const elapsed = Date.now() - started;
    // The upper bound only catches a wrong unit (per byte would be minutes); a loaded machine is slow.
    t.true(elapsed >= 390 && elapsed < 10_000, `took ${elapsed} ms`);
    t.true(anu.responses[0]!.receivedAt.getTime() - started >= 390);
  });
});

test('injected faults spoil one answer each, in order', async (t) => {
  await withAnu({ legacyMinIntervalMs: 0 }, async (anu) => {
    const legacyFaults = ['success-false', 'wrong-count', 'short-element', 'non-hex', 'uppercase', 'truncated-json', 'html-error'] as const;
    for (const fault of legacyFaults) anu.inject('legacy', fault);
    const answers: { status: number; text: string }[] = [];
    for (let index = 0; index <= legacyFaults.length; index++) {
      const response = await fetch(anu.legacyUrl + query(3, 4));
      answers.push({ status: response.status, text: await response.text() });
    }
    const parsed = (index: number) => JSON.parse(answers[index]!.text) as { success: boolean; data: string[] };
    t.false(parsed(0).success);
    t.is(parsed(1).data.length, 2);
    t.deepEqual(
      parsed(2).data.map((block) => block.length),
      [7, 8, 8],
    );
    t.regex(parsed(3).data[0]!, /^zz/);
    t.true(parsed(4).data.every((block) => /^[0-9A-F]{8}$/.test(block)));
    t.throws(() => parsed(5));
    t.is(answers[6]!.status, 502);
    t.true(parsed(7).success, 'the queue is used up');
    t.deepEqual(
      anu.responses.map((response) => response.fault),
      ['uppercase', undefined],
    );
    anu.inject('keyed', 'keyed-limit');
    t.is((await fetch(anu.keyedUrl + query(1, 1), { headers: { 'x-api-key': 'test-key' } })).status, 429);
    t.throws(() => anu.inject('legacy', 'keyed-forbidden'));
  });
});

test('a hung answer never comes, and close() ends it', async (t) => {
  const anu = await startAnuDouble();
  anu.inject('keyed', 'hang');
  const pending = fetch(anu.keyedUrl + query(1, 1), { headers: { 'x-api-key': 'test-key' } });
  // Closed before the request has arrived, the connection dies in a way that leaves Node's fetch
  // pending for good; wait until the double holds it.
  while (anu.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  const first = await Promise.race([pending.then(() => 'answered'), new Promise((resolve) => setTimeout(resolve, 200, 'waiting'))]);
  t.is(first, 'waiting');
  await anu.close();
  await t.throwsAsync(pending);
  t.like(anu.requests[0], { status: 0 });
});

interface Finished {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  /** How many separate reads the output arrived in. */
  reads: number;
  ms: number;
}

function run(command: string[], env: NodeJS.ProcessEnv, input = ''): Promise<Finished> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { env: { ...process.env, ...env } });
    const stdout: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (piece: Buffer) => stdout.push(piece));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(stdout), stderr, reads: stdout.length, ms: Date.now() - started }));
    child.stdin.end(input);
  });
}

async function diode(t: ExecutionContext): Promise<DiodeDouble> {
  const double = await DiodeDouble.create(t);
  t.teardown(() => double.cleanup());
  return double;
}

test('diode: a send is received by one stream-recv, which exits; an empty one exits at once', async (t) => {
  const double = await diode(t);
  const sent = await run(double.sendCommand(), double.env, 'first line\n');
  t.is(sent.code, 0, sent.stderr);
  t.is(double.queued().toString(), 'first line\n');
  const received = await run(double.receiveCommand(), double.env);
  t.is(received.code, 0);
  t.is(received.stdout.toString(), 'first line\n');
  t.is(double.queued().length, 0);
  const empty = await run(double.receiveCommand(), double.env);
  t.is(empty.code, 0);
  t.is(empty.stdout.length, 0);
  // Generous: what matters is that it does not wait for data, and a loaded machine starts Node slowly.
  t.true(empty.ms < 5000, `took ${empty.ms} ms`);
});

test('diode: options the real stream-send lacks exit 2 and queue nothing; so does a missing channel or spool', async (t) => {
  const double = await diode(t);
  for (const option of ['--no-wait', '-f']) {
    const rejected = await run(double.sendCommand([option]), double.env, 'x\n');
    t.is(rejected.code, 2);
    t.regex(rejected.stderr, new RegExp(`^error: unexpected argument '${option}' found`));
  }
  t.deepEqual(
    double.sendAttempts().map((attempt) => attempt.outcome),
    ['bad-arguments', 'bad-arguments'],
  );
  t.is(double.queued().length, 0);
  t.is((await run([...DiodeDouble.tool, 'stream-send', '--no-colour'], double.env)).code, 2);
  const noSpool = await run([...DiodeDouble.tool, 'stream-send', '--channel', double.channel, '--no-colour'], { DIODE_DOUBLE_DIR: undefined });
  t.is(noSpool.code, 2);
  t.regex(noSpool.stderr, /DIODE_DOUBLE_DIR/);
});

test('diode: refuseSends fails that many sends and counts down', async (t) => {
  const double = await diode(t);
  double.control({ refuseSends: 2 });
  const codes: (number | null)[] = [];
  for (const line of ['a\n', 'b\n', 'c\n']) {
    const sent = await run(double.sendCommand(), double.env, line);
    codes.push(sent.code);
    if (sent.code === 1) t.is(sent.stderr, 'transfer refused by peer\n');
  }
  t.deepEqual(codes, [1, 1, 0]);
  t.deepEqual(
    double.sendAttempts().map((attempt) => attempt.outcome),
    ['refused', 'refused', 'queued'],
  );
  t.is(double.queued().toString(), 'c\n');
});

test('diode: hangSends keeps the sender running and queues nothing', async (t) => {
  const double = await diode(t);
  double.control({ hangSends: true });
  const sender = startProcess(t, double.sendCommand()[0]!, double.sendCommand().slice(1), double.env);
  for (let waited = 0; double.sendAttempts().length === 0 && waited < 5000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  t.like(double.sendAttempts()[0], { outcome: 'hung' });
  t.is(sender.child.exitCode, null);
  t.is(double.queued().length, 0);
});

test('diode: by default each emission is chopped at offsets drawn from the seed, the same for the same seed', async (t) => {
  const lines = Array.from({ length: 4 }, (_, index) => `${String(index).repeat(329)}\n`).join('');
  const cutsOf = (seed: number, emissions: number) => chop(Buffer.from(lines), { seed, emissions }).map((piece) => piece.length);
  const pieces = cutsOf(12_345, 0);
  t.true(pieces.length > 1, `${pieces.join(' + ')} bytes`);
  t.is(
    pieces.reduce((sum, length) => sum + length, 0),
    lines.length,
  );
  t.deepEqual(cutsOf(12_345, 0), pieces, 'a seed replays its cuts');
  t.notDeepEqual(cutsOf(12_345, 1), pieces, 'the next emission is cut elsewhere');
  t.deepEqual(
    chop(Buffer.from(lines), { seed: 12_345, wholeChunks: true }).map((piece) => piece.length),
    [lines.length],
  );
  const offsets = new Set<number>();
  for (let emission = 0; emission < 200; emission++) {
    let at = 0;
    for (const length of cutsOf(7, emission).slice(0, -1)) offsets.add((at += length) % 330);
  }
  t.true(offsets.size > 100, `cuts fall anywhere in a line: ${offsets.size} of 330 positions seen`);

  const double = await diode(t);
  double.control({ chopDelayMs: 150 });
  double.enqueue(lines);
  const received = await run(double.receiveCommand(), double.env);
  t.is(received.stdout.toString(), lines, 'every byte, in order');
  // The writes are told apart by the pauses between them: a loaded reader may take several in one read.
  const writes = chop(Buffer.from(lines), { seed: double.seed, emissions: 0 }).length;
  t.true(writes > 1 && received.ms >= (writes - 1) * 150, `${writes} writes 150 ms apart took ${received.ms} ms`);
});

test('diode: chopAt with chopExit splits a line across two runs of stream-recv', async (t) => {
  const double = await diode(t);
  const line = `${'a'.repeat(100)}${'b'.repeat(229)}\n`;
  double.enqueue(line);
  double.control({ chopAt: [100], chopExit: true });
  const first = await run(double.receiveCommand(), double.env);
  t.is(first.stdout.toString(), 'a'.repeat(100));
  t.is(double.queued().toString(), line.slice(100));
  double.enqueue('next\n');
  double.control({});
  const second = await run(double.receiveCommand(), double.env);
  t.is(second.stdout.toString(), `${line.slice(100)}next\n`, 'the rest comes first, before later sends');
});

test('diode: chopAt makes separate writes; drop, corrupt and replay apply to one emission', async (t) => {
  const double = await diode(t);
  double.enqueue('abcdefgh');
  double.control({ chopAt: [2, 5], chopDelayMs: 150, drop: [{ offset: 1, length: 2 }], corrupt: [0], replay: true });
  const damaged = await run(double.receiveCommand(), double.env);
  const once = `${String.fromCharCode('a'.charCodeAt(0) ^ 0x5a)}defgh`;
  t.is(damaged.stdout.toString('latin1'), once + once);
  // Two pauses between three writes. How many reads they arrive in depends on when this process
  // gets to read the pipe, so that is only logged.
  t.true(damaged.ms >= 300, `took ${damaged.ms} ms`);
  t.log(`the chopped emission arrived in ${damaged.reads} reads`);
  double.enqueue('abcdefgh');
  const clean = await run(double.receiveCommand(), double.env);
  t.is(clean.stdout.toString(), 'abcdefgh', 'only chopAt stays');
});

test('diode: auto-stream-recv keeps running and emits later sends', async (t) => {
  const double = await diode(t);
  const receiveCommand = double.receiveCommand('auto-stream-recv');
  const receiver = startProcess(t, receiveCommand[0]!, receiveCommand.slice(1), double.env);
  t.is((await run(double.sendCommand(), double.env, 'one\n')).code, 0);
  await receiver.waitFor(/one\n/, 5000);
  t.is((await run(double.sendCommand(), double.env, 'two\n')).code, 0);
  await receiver.waitFor(/one\ntwo\n/, 5000);
  t.is(receiver.child.exitCode, null);
});
