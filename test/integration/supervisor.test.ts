import test from 'ava';
import { eventually, startFixtureHost, startFixtureProcess } from '../helpers/fixture-host.js';

test('a crashed actor is restarted and the role keeps serving', async (t) => {
  const host = await startFixtureHost(t);
  const before = await fetch(`${host.url}echo?text=before`);
  t.deepEqual(((await before.json()) as { text: string }).text, 'before');

  t.is((await fetch(`${host.url}crash-echo`, { method: 'POST' })).status, 202);
  await host.waitFor(/\[supervisor\] actor echo crashed: the echo fixture crashes as asked/);
  await host.waitFor(/restarting actor echo in \d+ms/);

  const served = await eventually(async () => {
    const response = await fetch(`${host.url}echo?text=after`);
    return response.status === 200 && ((await response.json()) as { text: string }).text === 'after';
  });
  t.true(served, 'the front reaches the restarted echo actor');
  t.is(host.child.exitCode, null, 'the process keeps running');
});

test('an actor that crashes in a loop stops the role and the process exits non-zero', async (t) => {
  const host = startFixtureProcess(t, { crashAtStart: true, supervisor: { restart: { max_restarts: 3, initial_backoff_ms: 10 } } });
  const code = await host.exited;
  t.not(code, 0);
  t.regex(host.stderr(), /actor echo crashed 4 times within 60s; giving up and stopping role fixture/);
  t.is((host.stderr().match(/restarting actor echo/g) ?? []).length, 3);
});

test('SIGTERM during load drains the requests in flight and exits 0', async (t) => {
  const host = await startFixtureHost(t);
  const requests = Array.from({ length: 24 }, () =>
    fetch(`${host.url}slow?ms=2000`).then(async (response) => ({ status: response.status, body: await response.json() })),
  );
  // SIGTERM only once every request has reached the handler, however slow the machine is.
  t.true(
    await eventually(async () => ((await (await fetch(`${host.url}slow/started`)).json()) as { started: number }).started === 24, 10_000, 20),
    'every slow request reached the front',
  );
  const stoppedAt = Date.now();
  host.child.kill('SIGTERM');
  const answers = await Promise.all(requests);
  t.true(
    answers.every((answer) => answer.status === 200),
    'every request in flight is answered',
  );
  t.is(await host.exited, 0);
  t.true(Date.now() - stoppedAt < 5000, 'the process exits within the shutdown bound');
  t.regex(host.stderr(), /stopping: received SIGTERM/);
  const refused = await fetch(`${host.url}ping`).then(
    () => 'answered',
    () => 'refused',
  );
  t.is(refused, 'refused', 'nothing listens after the stop');
});

test('actor log records reach the console and the ring buffer with the actor name, secrets redacted', async (t) => {
  const host = await startFixtureHost(t);
  const stream = await fetch(`${host.url}logs/stream`);
  t.is(stream.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();

  t.is((await fetch(`${host.url}say`, { method: 'POST', body: 'hello from the echo actor' })).status, 200);
  await host.waitFor(/\[echo\] hello from the echo actor password=\[redacted\]/);

  let streamed = '';
  while (!streamed.includes('hello from the echo actor')) {
    const { value, done } = await reader.read();
    if (done) break;
    streamed += value;
  }
  await reader.cancel();
  const event = streamed.split('\n\n').find((frame) => frame.includes('hello from the echo actor'));
  t.truthy(event);
  t.regex(event!, /^event: log$/m);
  const record = JSON.parse(
    event!
      .split('\n')
      .find((line) => line.startsWith('data: '))!
      .slice(6),
  ) as { source: string; fields: Record<string, string> };
  t.is(record.source, 'echo');
  t.is(record.fields.password, '[redacted]');

  const recent = (await (await fetch(`${host.url}logs/recent`)).json()) as { source: string; message: string }[];
  t.true(recent.some((entry) => entry.source === 'echo' && entry.message === 'hello from the echo actor'));
  t.false(host.stderr().includes('must-not-appear'));
});

test('two front threads on one port both serve requests', async (t) => {
  const host = await startFixtureHost(t, { fronts: 2 });
  const names = new Set<string>();
  for (let attempt = 0; attempt < 200 && names.size < 2; attempt++) {
    const response = await fetch(`${host.url}ping`, { headers: { connection: 'close' } });
    names.add(((await response.json()) as { name: string }).name);
  }
  t.deepEqual([...names].sort(), ['front#1', 'front#2']);
});

test('an actor runs CPU-heavy jobs on the shared pool', async (t) => {
  const host = await startFixtureHost(t);
  const { pbkdf2Sync } = await import('node:crypto');
  const expected = pbkdf2Sync('secret', 'fixture-salt', 1000, 32, 'sha256').toString('hex');
  const response = await fetch(`${host.url}derive?password=secret`);
  t.is(((await response.json()) as { key: string }).key, expected);
});

for (const keptBy of ['supervisor', 'publisher'] as const) {
  test(`events reach every subscriber, and a restarted subscriber gets the latest of every key again (kept by the ${keptBy})`, async (t) => {
    const host = await startFixtureHost(t);
    const publish = (key: string, text: string, retain = true) =>
      fetch(`${host.url}notes?key=${key}&text=${encodeURIComponent(text)}&kept=${keptBy}${retain ? '' : '&retain=no'}`, { method: 'POST' });
    const notes = async () => (await (await fetch(`${host.url}notes`)).json()) as { key: string; text: string }[];
    for (const [key, text] of [
      ['app', 'app v1'],
      ['www', 'www v1'],
      ['app', 'app v2'],
      ['old', 'old v1'],
    ] as const)
      t.is((await publish(key, text)).status, 202);
    t.is((await publish('old', 'old removed', false)).status, 202);
    t.true(await eventually(async () => (await notes()).length === 5), 'the subscriber receives every event in order');
    t.deepEqual(
      (await notes()).map((note) => note.text),
      ['app v1', 'www v1', 'app v2', 'old v1', 'old removed'],
    );

    t.is((await fetch(`${host.url}crash-echo`, { method: 'POST' })).status, 202);
    await host.waitFor(/restarting actor echo in \d+ms/);
    t.true(await eventually(async () => (await notes()).length === 2), 'the restarted subscriber receives the kept state');
    t.deepEqual(
      (await notes()).map((note) => note.text),
      ['app v2', 'www v1'],
    );
  });
}

test('a log stream gets the backlog it asks for, not the whole ring', async (t) => {
  const host = await startFixtureHost(t);
  for (const n of [1, 2, 3, 4, 5]) t.is((await fetch(`${host.url}say`, { method: 'POST', body: `backlog line ${n}` })).status, 200);
  await host.waitFor(/backlog line 5/);
  const stream = await fetch(`${host.url}logs/stream?backlog=2`);
  const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
  let streamed = '';
  while ((streamed.match(/event: log/g) ?? []).length < 2) {
    const { value, done } = await reader.read();
    if (done) break;
    streamed += value;
  }
  await reader.cancel();
  const messages = [...streamed.matchAll(/data: (\{.*\})/g)].map((match) => (JSON.parse(match[1] ?? '{}') as { message: string }).message);
  t.deepEqual(messages.slice(0, 2), ['backlog line 4', 'backlog line 5']);
});
