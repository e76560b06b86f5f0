// qpool collect against the ANU double and the diode double: what crosses the diode is exactly the
// provider's bytes, failures are logged as the spec says, and nothing spends extra keyed requests.
import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startAnuDouble, type AnuDouble, type AnuDoubleOptions } from '../fixtures/anu/anu-double.js';
import { DiodeDouble } from '../../helpers/diode-double.js';
import { runToEnd } from '../../helpers/process.js';
import { qpoolBin, startCollect, tempDir, writeConfig } from '../../helpers/qpool.js';

interface Line {
  value: string;
  timestamp: string;
  source: string;
}

async function setup(t: Parameters<typeof tempDir>[0], anuOptions: AnuDoubleOptions = {}) {
  const anu = await startAnuDouble(anuOptions);
  t.teardown(() => anu.close());
  const diode = await DiodeDouble.create(t);
  t.teardown(() => diode.cleanup());
  const dir = await tempDir(t);
  const stateDir = join(dir, 'state');
  return { anu, diode, dir, stateDir, env: { ...diode.env, QPOOL_STATE_DIR: stateDir } };
}

function sendConfig(anu: AnuDouble, diode: DiodeDouble, sources: { keyed?: object; legacy?: object }, extra: { collect?: object; diode?: object } = {}) {
  return {
    anu: {
      timeout_seconds: 20,
      ...(sources.keyed === undefined ? {} : { keyed: { enabled: true, api_key: 'test-key', url: anu.keyedUrl, ...sources.keyed } }),
      ...(sources.legacy === undefined ? {} : { legacy: { enabled: true, url: anu.legacyUrl, ...sources.legacy } }),
    },
    collect: { retry_limit: 3, ...extra.collect },
    diode: { send_command: diode.sendCommand(), timeout_seconds: 20, ...extra.diode },
  };
}

function queuedLines(diode: DiodeDouble): Line[] {
  return diode
    .queued()
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);
}

async function waitFor<T>(read: () => T, ready: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (ready(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value ${JSON.stringify(value).slice(0, 300)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('keyed 1024x10 and legacy 1024x64 cross the diode as 160 and 512 values: the provider bytes, tagged by origin', async (t) => {
  // 64 KiB of legacy bytes take ANU about 128 s; this test is about the bytes, not the wait.
  const { anu, diode, dir, stateDir, env } = await setup(t, { latency: 'none' });
  const config = await writeConfig(dir, sendConfig(anu, diode, { keyed: { length: 1024, size: 10 }, legacy: { length: 1024, size: 64 } }));
  const collect = startCollect(t, config, env);
  const lines = await waitFor(
    () => queuedLines(diode),
    (got) => got.length >= 672,
  );
  await collect.waitFor(/sent 512 values across the diode/);
  t.is(lines.length, 672);
  for (const source of ['keyed', 'legacy'] as const) {
    const response = anu.responses.find((candidate) => candidate.source === source);
    const values = lines.filter((line) => line.source === source);
    t.is(values.length, source === 'keyed' ? 160 : 512);
    t.is(values.map((line) => line.value).join(''), response?.bytes.toString('hex') ?? 'no response recorded');
    for (const line of values) {
      t.regex(line.value, /^[0-9a-f]{256}$/);
      t.true(Math.abs(Date.parse(line.timestamp) - (response?.receivedAt.getTime() ?? 0)) < 5000);
    }
  }
  t.is(anu.requests.find((request) => request.source === 'keyed')?.apiKey, 'test-key');
  // Nothing but the keyed-request ledger is written on the sending side, and it holds no value.
  t.deepEqual(await readdir(stateDir), ['send-ledger.json']);
  t.regex(await readFile(join(stateDir, 'send-ledger.json'), 'utf8'), /^\{"keyed":\{"last_request":"[^"]+"\}\}\n$/);
  t.deepEqual(await readdir(dir), ['qpool.json', 'state']);
});

test('a size that does not divide into 128-byte values discards the remainder and logs its size', async (t) => {
  const { anu, diode, dir, env } = await setup(t);
  const config = await writeConfig(dir, sendConfig(anu, diode, { legacy: { length: 10, size: 100 } }));
  const collect = startCollect(t, config, env);
  await collect.waitFor(/legacy: 7 values from 1000 bytes; discarded the last 104 bytes/);
  const lines = await waitFor(
    () => queuedLines(diode),
    (got) => got.length >= 7,
  );
  t.is(lines.map((line) => line.value).join(''), anu.responses[0]?.bytes.subarray(0, 896).toString('hex') ?? 'no response recorded');
});

test('a refusing diode is tried retry_limit times, then the batch is dropped with the log line', async (t) => {
  const { anu, diode, dir, env } = await setup(t);
  diode.control({ refuseSends: 100 });
  const config = await writeConfig(dir, sendConfig(anu, diode, { legacy: { length: 4, size: 64 } }));
  const collect = startCollect(t, config, env);
  await collect.waitFor(/gave up after 3 attempts; dropped 2 values/);
  t.is(diode.sendAttempts().length, 3);
  t.true(diode.sendAttempts().every((attempt) => attempt.outcome === 'refused'));
  t.regex(collect.stdout() + collect.stderr(), /diode send attempt 1 of 3 failed: .*transfer refused by peer/);
  t.is(diode.queued().length, 0);
});

test('a hanging send is killed at diode.timeout_seconds and counts as a failed attempt', async (t) => {
  const { anu, diode, dir, env } = await setup(t);
  diode.control({ hangSends: true });
  const config = await writeConfig(
    dir,
    sendConfig(anu, diode, { legacy: { length: 2, size: 64 } }, { collect: { retry_limit: 2 }, diode: { timeout_seconds: 1 } }),
  );
  const collect = startCollect(t, config, env);
  await collect.waitFor(/gave up after 2 attempts; dropped 1 values/);
  t.is((collect.stdout() + collect.stderr()).match(/no answer within 1s \(diode\.timeout_seconds\); killed/g)?.length, 2);
});

/** Processes running the diode double's tool for this test's spool (its DIODE_DOUBLE_DIR), by pid. */
async function doubleToolPids(diode: DiodeDouble): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const environ = await readFile(`/proc/${entry}/environ`, 'utf8').catch(() => '');
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (environ.split('\0').includes(`DIODE_DOUBLE_DIR=${diode.dir}`) && cmdline.includes('diode-tool.js')) pids.push(Number(entry));
  }
  return pids;
}

test('a send command still running when collect stops is killed with it, not left behind', async (t) => {
  const { anu, diode, dir, env } = await setup(t);
  diode.control({ hangSends: true });
  const config = await writeConfig(dir, sendConfig(anu, diode, { legacy: { length: 2, size: 64 } }, { diode: { timeout_seconds: 600 } }));
  const collect = startCollect(t, config, env);
  t.teardown(async () => {
    for (const pid of await doubleToolPids(diode)) process.kill(pid, 'SIGKILL');
  });
  let running: number[] = [];
  for (const deadline = Date.now() + 20_000; running.length === 0; ) {
    if (Date.now() > deadline) throw new Error('no send command ran within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
    running = await doubleToolPids(diode);
  }
  collect.child.kill('SIGTERM');
  t.is(await collect.exited, 0, collect.stderr());
  t.deepEqual(await doubleToolPids(diode), [], `the send command (pid ${running.join(', ')}) ended with the outpost`);
});

test('a state folder that cannot be made (QPOOL_STATE_DIR=/proc/nope): the keyed request is not sent, the log names the folder, SIGTERM stops collect', async (t) => {
  const { anu, diode, dir, env } = await setup(t);
  const config = await writeConfig(dir, sendConfig(anu, diode, { keyed: { length: 1, size: 10 } }));
  const collect = startCollect(t, config, { ...env, QPOOL_STATE_DIR: '/proc/nope' });
  await collect.waitFor(
    /keyed request failed: not sent, because it could not be recorded in the keyed request ledger \(.*'\/proc\/nope'\).*set QPOOL_STATE_DIR to a writable directory/,
    20_000,
  );
  t.is(anu.requests.filter((request) => request.source === 'keyed').length, 0, 'no keyed request was spent');
  collect.child.kill('SIGTERM');
  t.is(await collect.exited, 0, collect.stderr());
});

test('the legacy rate limit: the provider text is logged with the every-source line', async (t) => {
  const { anu, diode, dir, env } = await setup(t);
  const config = await writeConfig(dir, sendConfig(anu, diode, { legacy: { length: 2, size: 64 } }));
  const first = startCollect(t, config, env);
  await first.waitFor(/sent 1 values across the diode/);
  first.child.kill('SIGTERM');
  await first.exited;
  const second = startCollect(t, config, env);
  await second.waitFor(/every ANU source tried failed: legacy/);
  t.regex(
    second.stdout() + second.stderr(),
    /legacy request failed: HTTP 500: The QRNG API is limited to 1 requests per minute\. For more requests, please visit https:\/\/quantumnumbers\.anu\.edu\.au/,
  );
});

test('a refused key logs the 403, and a crash loop spends no further keyed request', async (t) => {
  const { anu, diode, dir, env } = await setup(t);
  const config = await writeConfig(dir, sendConfig(anu, diode, { keyed: { api_key: 'wrong-key', length: 8, size: 10 } }));
  const first = startCollect(t, config, env);
  await first.waitFor(/every ANU source tried failed: keyed/);
  t.regex(first.stdout() + first.stderr(), /keyed request failed: HTTP 403 \{"message":"Forbidden"\}: the API key was refused/);
  for (let restart = 0; restart < 3; restart++) {
    // Each start waits for the last to be gone: the keyed ledger has one owner at a time.
    if (restart === 0) {
      process.kill(-(first.child.pid ?? 0), 'SIGKILL');
      await first.exited;
    }
    const again = startCollect(t, config, env);
    await again.waitFor(/keyed: the last request was less than 28800s ago; the next is in \d+s/);
    process.kill(-(again.child.pid ?? 0), 'SIGKILL');
    await again.exited;
  }
  t.is(anu.requests.filter((request) => request.source === 'keyed').length, 1);
});

test('every config mistake exits 2 with a message naming the option', async (t) => {
  const dir = await tempDir(t);
  const diode = ['diode', 'stream-send', '--channel', 'qpool', '--no-colour'];
  const cases: [string, object, RegExp][] = [
    [
      'keyed without a key',
      { anu: { keyed: { enabled: true } }, diode: { send_command: diode } },
      /anu\.keyed\.api_key is required when anu\.keyed\.enabled is true/,
    ],
    ['length out of range', { anu: { legacy: { enabled: true, length: 2000 } }, diode: { send_command: diode } }, /anu\.legacy\.length must be at most 1024/],
    [
      'keyed size out of range',
      { anu: { keyed: { enabled: true, api_key: 'k', size: 11 } }, diode: { send_command: diode } },
      /anu\.keyed\.size must be at most 10/,
    ],
    ['legacy size zero', { anu: { legacy: { enabled: true, size: 0 } }, diode: { send_command: diode } }, /anu\.legacy\.size must be at least 1/],
    ['no source', { anu: {}, diode: { send_command: diode } }, /anu must enable a source/],
    ['empty send command', { anu: { legacy: { enabled: true } }, diode: { send_command: [] } }, /diode\.send_command must have at least 1 entries/],
    ['send command not an array', { anu: { legacy: { enabled: true } }, diode: { send_command: 'diode stream-send' } }, /diode\.send_command must be an array/],
    [
      '--no-wait',
      { anu: { legacy: { enabled: true } }, diode: { send_command: [...diode, '--no-wait'] } },
      /diode\.send_command\[5\] is --no-wait, which stream-send does not have: .*every cycle would fail/,
    ],
    [
      '-f',
      { anu: { legacy: { enabled: true } }, diode: { send_command: [...diode, '-f'] } },
      /diode\.send_command\[5\] is -f, which stream-send does not have/,
    ],
    [
      'file-based send',
      { anu: { legacy: { enabled: true } }, diode: { send_command: ['diode', 'send', '--channel', 'qpool'] } },
      /diode\.send_command\[1\] is send, a file-based diode subcommand/,
    ],
    ['no diode', { anu: { legacy: { enabled: true } } }, /diode must be an object/],
    [
      'typo',
      { anu: { legacy: { enabled: true, intervl_seconds: 60 } }, diode: { send_command: diode } },
      /anu\.legacy\.intervl_seconds is not a known option \(did you mean interval_seconds\?\)/,
    ],
  ];
  for (const [name, config, message] of cases) {
    const path = await writeConfig(dir, config, `${name.replaceAll(' ', '-')}.json`);
    const result = await runToEnd(process.execPath, [qpoolBin, 'collect', '-c', path]);
    t.is(result.code, 2, name);
    t.regex(result.stderr, message, name);
  }
  const serveCases: [string, object, RegExp][] = [
    [
      'file-based receive',
      { server: { receive_command: ['diode', 'recv', '--channel', 'q'] } },
      /server\.receive_command\[1\] is recv, a file-based diode subcommand/,
    ],
    ['no receive command', { server: {} }, /server\.receive_command is required/],
    ['relative pool file', { server: { receive_command: ['diode', 'stream-recv'], pool_file: 'pool.bin' } }, /server\.pool_file must be an absolute path/],
    ['bad listen', { server: { receive_command: ['diode', 'stream-recv'], listen: 'localhost' } }, /server\.listen must be host:port/],
    ['capacity zero', { server: { receive_command: ['diode', 'stream-recv'], max_entries: 0 } }, /server\.max_entries must be at least 1/],
    ['tiny journal', { server: { receive_command: ['diode', 'stream-recv'], journal_limit_kib: 4 } }, /server\.journal_limit_kib must be at least 16/],
  ];
  for (const [name, config, message] of serveCases) {
    const path = await writeConfig(dir, config, `${name.replaceAll(' ', '-')}.json`);
    const result = await runToEnd(process.execPath, [qpoolBin, 'serve', '-c', path]);
    t.is(result.code, 2, name);
    t.regex(result.stderr, message, name);
  }
});
