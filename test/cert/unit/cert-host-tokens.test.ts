// Host tokens (actors/cert/hosts/host-tokens.ts): the book issues one per host name under a domain,
// keeps its SHA-256 only (file 0600), revokes it as retired, records its last use to the minute and
// drops the tokens of a removed domain; the front's replica finds a token by its digest for its own
// domain only; a revoked token's 401 is worded so that the agent tells it apart.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import { secretDigest } from '../../../src/crypto/constant-time.js';
import type { DomainView, RetiredToken } from '../../../actors/cert/domains/protocol.js';
import { retiredTokenMessage } from '../../../actors/cert/domains/retired-tokens.js';
import { HostTokenBook, type HostTokensMessage } from '../../../actors/cert/hosts/host-token-book.js';
import { openHostTokenStore } from '../../../actors/cert/hosts/host-token-store.js';
import { hostTokenHostProblem, maxHostTokensPerDomain } from '../../../actors/cert/hosts/host-tokens.js';
import { HostTokenReplica } from '../../../actors/cert/site/host-token-replica.js';
import { isRetiredTokenReason, statusFailure } from '../../../actors/proxy/client/fetch-failure.js';
import { FileDocuments } from '../../../actors/cert/store/documents.js';

const log = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const start = Date.parse('2029-01-01T00:00:00.000Z');
const app = 'app.example.test';

async function openBook(t: { teardown: (fn: () => Promise<void>) => void }, dir?: string) {
  const folder = dir ?? (await mkdtemp(join(tmpdir(), 'cert-host-tokens-')));
  if (dir === undefined) t.teardown(() => rm(folder, { recursive: true, force: true }));
  const clock = new ManualClock(start);
  const published: HostTokensMessage[] = [];
  const retired: Omit<RetiredToken, 'retired_at'>[] = [];
  const { store, loaded } = await openHostTokenStore(new FileDocuments(folder));
  const book = new HostTokenBook(loaded.tokens, {
    store,
    clock,
    log,
    publish: (message) => published.push(message),
    retire: (retiring) => Promise.resolve(void retired.push(retiring)),
  });
  return { dir: folder, clock, published, retired, store, book, loaded };
}

const domainChange = (name: string) => ({ type: 'domain' as const, domain: { name } as DomainView, material: null });

test('a host token is kept as its SHA-256 in a 0600 file, listed without it, and published to the fronts', async (t) => {
  const { dir, book, published, store } = await openBook(t);
  book.domainChanged(domainChange(app));
  const issued = await book.issue(app, 'web1');
  t.regex(issued.token, /^chh_[A-Za-z0-9_-]{43}$/);
  t.regex(issued.id, /^[0-9a-f]{16}$/);
  t.deepEqual({ ...issued, token: '', id: '' }, { domain: app, host: 'web1', created_at: '2029-01-01T00:00:00.000Z', last_used_at: null, token: '', id: '' });
  await store.flush();
  const file = join(dir, 'host-tokens', `${app}.json`);
  t.is((await stat(file)).mode & 0o777, 0o600);
  t.is((await stat(join(dir, 'host-tokens'))).mode & 0o777, 0o700);
  const text = await readFile(file, 'utf8');
  t.false(text.includes(issued.token));
  t.true(text.includes(secretDigest(issued.token).toString('hex')));
  t.deepEqual(published.at(-1), {
    type: 'host-tokens',
    name: app,
    tokens: [{ id: issued.id, host: 'web1', sha256: secretDigest(issued.token).toString('hex'), created_at: issued.created_at, last_used_at: null }],
  });
});

test('the book refuses a second token for one host, an unknown domain, a bad host name and one token past the most', async (t) => {
  const { book } = await openBook(t);
  book.domainChanged(domainChange(app));
  await book.issue(app, 'web1');
  await t.throwsAsync(() => book.issue(app, 'web1'), { message: /has a host token for web1 already \(id [0-9a-f]{16}\): revoke it first/ });
  await t.throwsAsync(() => book.issue('other.example.test', 'web1'), { message: 'no domain other.example.test' });
  await t.throwsAsync(() => book.issue(app, ''), { message: 'give the host a name' });
  for (let host = 2; host <= maxHostTokensPerDomain; host++) await book.issue(app, `web${host}`);
  await t.throwsAsync(() => book.issue(app, 'one-more'), { message: /has 100 host tokens, the most it keeps/ });
  t.is(hostTokenHostProblem('web1.example.net'), undefined);
  t.is(hostTokenHostProblem('a'.repeat(254)), 'the host name is longer than 253 characters');
  t.is(hostTokenHostProblem('web\t1'), 'the host name holds control characters');
  t.is(hostTokenHostProblem('web1 '), 'the host name starts or ends with spaces');
});

test('a revoked token is retired with its host; the last use is kept to the minute; the tokens survive a restart and go with their domain', async (t) => {
  const first = await openBook(t);
  const { book, clock, published, retired, store } = first;
  book.domainChanged(domainChange(app));
  const web1 = await book.issue(app, 'web1');
  const web2 = await book.issue(app, 'web2');

  book.recordUses([{ name: app, id: web1.id, at: clock.now() + 5000 }]);
  t.is(published.at(-1)?.tokens.find((each) => each.id === web1.id)?.last_used_at, '2029-01-01T00:00:05.000Z');
  const count = published.length;
  book.recordUses([{ name: app, id: web1.id, at: clock.now() + 30_000 }]);
  t.is(published.length, count, 'within the same minute: nothing written or published');
  book.recordUses([
    { name: app, id: web1.id, at: clock.now() + 61_000 },
    { name: app, id: 'ffffffffffffffff', at: clock.now() },
  ]);
  t.is(published.at(-1)?.tokens.find((each) => each.id === web1.id)?.last_used_at, '2029-01-01T00:01:01.000Z');

  const revoked = await book.revoke(app, web1.id);
  t.deepEqual(revoked, { id: web1.id, host: 'web1', created_at: web1.created_at, last_used_at: '2029-01-01T00:01:01.000Z' });
  t.deepEqual(retired, [{ name: app, sha256: secretDigest(web1.token).toString('hex'), reason: 'revoked', host: 'web1' }]);
  t.deepEqual(
    published.at(-1)?.tokens.map((each) => each.host),
    ['web2'],
  );
  await t.throwsAsync(() => book.revoke(app, web1.id), { message: `${app} has no host token ${web1.id}` });
  await store.flush();

  const again = await openBook(t, first.dir);
  t.deepEqual([...(again.loaded.tokens.get(app)?.keys() ?? [])], [web2.id]);
  again.book.domainChanged(domainChange(app));
  await again.book.settle();
  t.deepEqual(
    again.published.map((message) => message.tokens.map((each) => each.host)),
    [['web2']],
    'published at start',
  );
  again.book.domainChanged({ type: 'removed', name: app });
  t.deepEqual(again.published.at(-1), { type: 'host-tokens', name: app, tokens: [] });
  t.deepEqual(again.retired, [{ name: app, sha256: secretDigest(web2.token).toString('hex'), reason: 'removed', host: 'web2' }]);
  await again.book.stop();
  t.is((await openHostTokenStore(new FileDocuments(first.dir))).loaded.tokens.size, 0);
});

test('at start, the tokens of a domain the book does not hold are dropped', async (t) => {
  const first = await openBook(t);
  first.book.domainChanged(domainChange(app));
  await first.book.issue(app, 'web1');
  await first.store.flush();
  const again = await openBook(t, first.dir);
  await again.book.settle();
  t.deepEqual(again.published, []);
  t.is((await openHostTokenStore(new FileDocuments(first.dir))).loaded.tokens.size, 0);
});

test("the front's replica finds a token by its digest for its own domain only, and forgets it when revoked", (t) => {
  const replica = new HostTokenReplica();
  const token = 'chh_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';
  const record = {
    id: '0123456789abcdef',
    host: 'web1',
    sha256: secretDigest(token).toString('hex'),
    created_at: new Date(start).toISOString(),
    last_used_at: null,
  };
  replica.apply(app, [record]);
  t.is(replica.match(app, token), record);
  t.is(replica.match('web.example.test', token), undefined, 'another domain');
  t.is(replica.match(app, `${token}x`), undefined);
  t.is(replica.match(app, ''), undefined);
  t.deepEqual(replica.of(app), [{ id: record.id, host: 'web1', created_at: record.created_at, last_used_at: null }]);
  replica.apply(app, []);
  t.is(replica.match(app, token), undefined);
  t.deepEqual(replica.of(app), []);
  replica.apply(app, [record]);
  replica.forget(app);
  t.is(replica.match(app, token), undefined);
});

test("a revoked host token's 401 names its host and is what the agent recognises as retired", (t) => {
  const message = retiredTokenMessage({ name: app, sha256: 'a'.repeat(64), reason: 'revoked', retired_at: '2029-01-02T03:04:05.000Z', host: 'web1' });
  t.is(message, 'this host token (host web1) was revoked on 2029-01-02; ask the certhub admin for a new one');
  t.true(isRetiredTokenReason(message));
  const failure = statusFailure(401, JSON.stringify({ error: message }), undefined, app, 'https://certhub.example.test');
  t.true(failure.retired);
  t.is(failure.message, `https://certhub.example.test refused the token for ${app} (HTTP 401): ${message}`);
});
