// The naming rules the DNS providers share: which record a target makes, TXT quoting both ways,
// nameserver addresses as configured.
import test from 'ava';
import { parseNameserver } from '../../../actors/cert/acme/propagation.js';
import { GroupCommit } from '../../../actors/cert/dns/providers/group-commit.js';
import { addressRecordFor, canonicalName, KeyedConcurrency, KeyedSerializer, quoteTxt, unquoteTxt } from '../../../actors/cert/dns/providers/provider.js';

test('a target makes A, AAAA or CNAME; anything else is refused', (t) => {
  t.deepEqual(addressRecordFor('203.0.113.5'), { type: 'A', content: '203.0.113.5' });
  t.deepEqual(addressRecordFor('2001:db8::5'), { type: 'AAAA', content: '2001:db8::5' });
  t.deepEqual(addressRecordFor('Backend.Example.org.'), { type: 'CNAME', content: 'backend.example.org' });
  for (const bad of ['', 'not a host', '-bad.example.org', 'a..b', '203.0.113.256', '10.0.0', 'x'.repeat(64) + '.org', 'http://x.org']) {
    t.throws(() => addressRecordFor(bad), { code: 'ERR_BAD_REQUEST' }, bad);
  }
});

test('names are lower case without a trailing dot; service labels are names', (t) => {
  t.is(canonicalName('_acme-challenge.App.Example.com.'), '_acme-challenge.app.example.com');
  t.throws(() => canonicalName('a b.example.com'), { code: 'ERR_BAD_REQUEST' });
});

test('TXT values are quoted with escapes and read back whatever the quoting', (t) => {
  t.is(quoteTxt('abc'), '"abc"');
  t.is(quoteTxt('say "hi" \\ bye'), '"say \\"hi\\" \\\\ bye"');
  for (const value of ['abc', 'say "hi" \\ bye', 'dGVzdA-_x']) t.is(unquoteTxt(quoteTxt(value)), value);
  t.is(unquoteTxt('unquoted'), 'unquoted');
  t.is(unquoteTxt('"split" "value"'), 'splitvalue');
});

test('nameservers are host:port, [v6]:port or a host for port 53', (t) => {
  t.deepEqual(parseNameserver('127.0.0.1:5353'), { host: '127.0.0.1', port: 5353 });
  t.deepEqual(parseNameserver('[::1]:5353'), { host: '::1', port: 5353 });
  t.deepEqual(parseNameserver('::1'), { host: '::1', port: 53 });
  t.deepEqual(parseNameserver('ns1.example.com'), { host: 'ns1.example.com', port: 53 });
  t.deepEqual(parseNameserver('ns1.example.com:53'), { host: 'ns1.example.com', port: 53 });
  for (const bad of ['', ':53', '127.0.0.1:0', '127.0.0.1:70000', 'a b:53', '[::1]:x'])
    t.throws(() => parseNameserver(bad), { message: /is not host:port/ }, bad);
});

test('operations on one key run one after the other, other keys in parallel', async (t) => {
  const serializer = new KeyedSerializer();
  const events: string[] = [];
  const step = (label: string, ms: number) => async () => {
    events.push(`${label} start`);
    await new Promise((resolve) => setTimeout(resolve, ms));
    events.push(`${label} end`);
  };
  const failing = serializer.run('a', () => Promise.reject(new Error('first fails')));
  await Promise.all([t.throwsAsync(failing), serializer.run('a', step('a1', 30)), serializer.run('a', step('a2', 0)), serializer.run('b', step('b1', 10))]);
  t.true(events.indexOf('a1 end') < events.indexOf('a2 start'), 'a2 waited for a1, after a failure before it');
  t.true(events.indexOf('b1 start') < events.indexOf('a1 end'), 'b did not wait for a');
});

test('at most the limit of one key run at once, in call order; a failure frees its slot; other keys do not wait', async (t) => {
  const limit = new KeyedConcurrency(2);
  let running = 0;
  let most = 0;
  const started: string[] = [];
  const releases: (() => void)[] = [];
  const held = (label: string) => () => {
    started.push(label);
    running++;
    most = Math.max(most, running);
    return new Promise<void>((resolve) => releases.push(resolve)).finally(() => running--);
  };
  const runs = ['a1', 'a2', 'a3', 'a4'].map((label) => limit.run('a', held(label)));
  const other = limit.run('b', () => Promise.resolve('b done'));
  t.is(await other, 'b done', 'another key runs while a is full');
  await Promise.resolve();
  t.deepEqual(started, ['a1', 'a2']);
  releases.shift()?.();
  await runs[0];
  await new Promise((resolve) => setImmediate(resolve));
  t.deepEqual(started, ['a1', 'a2', 'a3'], 'a finished run hands its slot to the next in line');
  const failing = limit.run('a', () => Promise.reject(new Error('refused')));
  while (releases.length > 0) {
    releases.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(runs);
  await t.throwsAsync(failing, { message: 'refused' });
  t.is(await limit.run('a', () => Promise.resolve('after')), 'after', 'the failed run freed its slot');
  t.deepEqual(started, ['a1', 'a2', 'a3', 'a4']);
  t.is(most, 2);
});

test('group commit: changes arriving during a write go together; a failure that is not a refusal fails them all at once', async (t) => {
  const writes: string[][] = [];
  let failNext = false;
  const commit = new GroupCommit<string>(
    async (changes) => {
      writes.push(changes);
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (failNext) throw new Error('server down');
    },
    () => false,
  );
  await Promise.all(['a', 'b', 'c'].map((change) => commit.submit(change)));
  t.deepEqual(writes, [['a'], ['b', 'c']]);
  writes.length = 0;
  failNext = true;
  const results = await Promise.allSettled(['d', 'e', 'f'].map((change) => commit.submit(change)));
  t.deepEqual(
    results.map((result) => result.status),
    ['rejected', 'rejected', 'rejected'],
  );
  t.deepEqual(writes, [['d'], ['e', 'f']], 'no change was written alone after a failure that was not a refusal');
});
