// certhub refuses an add past max_domains, and a CNAME target that closes a loop
// between its own names (a -> b -> a, or longer), on add and on a target change; 409 naming why.
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import { certConfigSchema } from '../../../actors/cert/config.js';
import { validateConfig } from '../../../src/config/load.js';
import { ConfigError, OutpostError } from '../../../src/errors.js';
import { defaultMaxDomains, refuseCnameLoop, refuseOverLimit } from '../../../actors/cert/domains/limits.js';
import type { Target } from '../../../actors/cert/dns/targets.js';
import { classifyTarget } from '../../../actors/cert/domains/names.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { day, startBook } from '../helpers/domain-book.js';

const start = Date.UTC(2026, 0, 1);

/** The managed names' targets, as the book knows them. */
function managed(targets: Record<string, string>): (name: string) => Target | undefined {
  return (name) => (targets[name] === undefined ? undefined : classifyTarget(targets[name], name));
}

test('refuseOverLimit: the last place is taken, the one after it is refused naming max_domains', (t) => {
  t.notThrows(() => refuseOverLimit(2, 3));
  const refused = t.throws(() => refuseOverLimit(3, 3), { instanceOf: OutpostError });
  t.is(refused?.code, 'ERR_CONFLICT');
  t.is(refused?.status, 409);
  t.regex(refused?.message ?? '', /certhub manages 3 domains and max_domains \(config\.json\) allows 3: remove a domain, or raise max_domains/);
});

test('refuseCnameLoop: two names, three names, and chains that end outside are told apart', (t) => {
  const loopOf = (name: string, target: string, targets: Record<string, string>) => {
    try {
      refuseCnameLoop(name, classifyTarget(target, name), managed(targets));
      return undefined;
    } catch (error) {
      t.is((error as OutpostError).code, 'ERR_CONFLICT');
      return (error as OutpostError).message;
    }
  };
  t.regex(loopOf('a.example.com', 'b.example.com', { 'b.example.com': 'a.example.com' }) ?? '', /a\.example\.com -> b\.example\.com -> a\.example\.com/);
  t.regex(
    loopOf('a.example.com', 'B.Example.com.', { 'b.example.com': 'c.example.com', 'c.example.com': 'a.example.com' }) ?? '',
    /target "b\.example\.com" would make a CNAME loop between managed names: a\.example\.com -> b\.example\.com -> c\.example\.com -> a\.example\.com/,
  );
  t.is(
    loopOf('a.example.com', 'b.example.com', { 'b.example.com': 'c.example.com', 'c.example.com': '203.0.113.5' }),
    undefined,
    'a chain that ends at an address',
  );
  t.is(loopOf('a.example.com', 'b.example.com', { 'b.example.com': 'backend.example.net' }), undefined, 'a chain that leaves the managed names');
  t.is(loopOf('a.example.com', 'x.b.example.com', { 'b.example.com': 'a.example.com' }), undefined, 'a name under a managed one is not managed');
  t.is(loopOf('a.example.com', '203.0.113.5', { 'b.example.com': 'a.example.com' }), undefined, 'an address ends every chain');
  t.is(
    loopOf('a.example.com', 'b.example.com', { 'b.example.com': 'c.example.com', 'c.example.com': 'b.example.com' }),
    undefined,
    'a loop an older store holds elsewhere ends the walk, and is not this one',
  );
});

test('the book refuses an add past max_domains with 409, stores nothing for it, and takes one again after a removal', async (t) => {
  const dataDir = await certDataDir(t);
  const harness = await startBook(t, { dataDir, clock: new ManualClock(start), lifetimeMs: 90 * day, maxDomains: 2 });
  await harness.book.add({ name: 'one', target: '203.0.113.1' });
  await harness.book.add({ name: 'two', target: '203.0.113.2' });
  const refused = await t.throwsAsync(harness.book.add({ name: 'three', target: '203.0.113.3' }), { instanceOf: OutpostError });
  t.is(refused?.status, 409);
  t.regex(refused?.message ?? '', /max_domains \(config\.json\) allows 2/);
  t.deepEqual(
    harness.book
      .list()
      .map((view) => view.label)
      .sort(),
    ['one', 'two'],
  );
  await t.throwsAsync(access(join(dataDir, 'domains', 'three.example.com.json')), { code: 'ENOENT' });
  t.false(harness.replica.has('three.example.com'), 'nothing published for it');
  await harness.book.remove('one');
  t.like(await harness.book.add({ name: 'three', target: '203.0.113.3' }), { name: 'three.example.com', status: 'pending' });
  // The orders finish before the data directory goes.
  for (const label of ['two', 'three']) await harness.until(label, (view) => view.status === 'issued');
});

test('the book refuses a CNAME loop on add and on a target change, and leaves the domains as they were', async (t) => {
  const harness = await startBook(t, { dataDir: await certDataDir(t), clock: new ManualClock(start), lifetimeMs: 90 * day });
  // b points at a name certhub does not manage yet: allowed, until a is added pointing back.
  await harness.book.add({ name: 'b', target: 'a.example.com' });
  const onAdd = await t.throwsAsync(harness.book.add({ name: 'a', target: 'b.example.com' }), { instanceOf: OutpostError });
  t.is(onAdd?.status, 409);
  t.regex(onAdd?.message ?? '', /a\.example\.com -> b\.example\.com -> a\.example\.com/);
  t.false(harness.book.list().some((view) => view.label === 'a'));

  await harness.book.add({ name: 'a', target: '203.0.113.5' });
  await harness.book.add({ name: 'c', target: 'b.example.com' });
  const onChange = await t.throwsAsync(harness.book.setTarget('a', 'c.example.com'), { instanceOf: OutpostError });
  t.is(onChange?.status, 409);
  t.regex(onChange?.message ?? '', /a\.example\.com -> c\.example\.com -> b\.example\.com -> a\.example\.com/);
  t.like(await harness.storedRecord('a'), { target: '203.0.113.5', record_type: 'A' }, 'the refused target was not stored');
  t.like(
    await harness.book.setTarget('a', 'backend.example.net'),
    { target: 'backend.example.net', record_type: 'CNAME' },
    'a chain that ends outside is fine',
  );
  // The orders finish before the data directory goes.
  for (const label of ['a', 'b', 'c']) await harness.until(label, (view) => view.status === 'issued');
});

test('max_domains: 10,000 by default, a positive integer, named when wrong', (t) => {
  const base = { base_domain: 'example.com', admin_key: 'cha_0123456789abcdef0123456789abcdef' };
  const schema = certConfigSchema({ demo: true });
  t.is(defaultMaxDomains, 10_000);
  t.is(validateConfig(schema, base).max_domains, 10_000);
  t.is(validateConfig(schema, { ...base, max_domains: 25 }).max_domains, 25);
  for (const [value, problem] of [
    [0, 'max_domains must be at least 1'],
    [2.5, 'max_domains must be an integer'],
    ['100', 'max_domains must be a number'],
  ] as const) {
    const error = t.throws(() => validateConfig(schema, { ...base, max_domains: value }), { instanceOf: ConfigError });
    t.deepEqual(error?.problems, [problem]);
  }
});
