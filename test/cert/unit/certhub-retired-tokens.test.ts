// The tokens certhub retired: kept as digests for a bounded time and count, matched in constant time
// per entry, published to the fronts' replica, and worded so that the agent recognises them.
import test from 'ava';
import { isRetiredTokenReason, statusFailure } from '../../../actors/proxy/client/fetch-failure.js';
import {
  matchRetired,
  retiredDigest,
  retiredInAll,
  retiredPerDomain,
  retiredTokenKeepMs,
  retiredTokenMessage,
  withRetired,
  type RetiredToken,
} from '../../../actors/cert/domains/retired-tokens.js';
import { DomainReplica } from '../../../actors/cert/site/replica.js';
import { RetiredFetchLog, retiredFetchLogGapMs } from '../../../actors/cert/site/retired-fetch-log.js';

const day = 86_400_000;
const now = Date.parse('2026-12-01T12:00:00.000Z');

test('a retired token is kept as its SHA-256, never as itself, and matches only itself', (t) => {
  const tokens = withRetired([], 'app.example.test', 'chd_old', 'rotated', now);
  t.deepEqual(tokens, [{ name: 'app.example.test', sha256: retiredDigest('chd_old'), reason: 'rotated', retired_at: '2026-12-01T12:00:00.000Z' }]);
  t.false(JSON.stringify(tokens).includes('chd_old'));
  t.is(matchRetired(tokens, 'chd_old', now), tokens[0]);
  t.is(matchRetired(tokens, 'chd_other', now), undefined);
});

test('kept for 90 days, the latest few of a domain, and a bounded number in all', (t) => {
  const old = withRetired([], 'app.example.test', 'chd_old', 'rotated', now - retiredTokenKeepMs);
  t.is(matchRetired(old, 'chd_old', now), undefined, 'older than 90 days: the plain 401');
  t.deepEqual(
    withRetired(old, 'web.example.test', 'chd_web', 'removed', now).map((entry) => entry.name),
    ['web.example.test'],
    'expired entries are dropped when one is added',
  );

  let tokens: RetiredToken[] = [];
  for (let rotation = 0; rotation < retiredPerDomain + 3; rotation++)
    tokens = withRetired(tokens, 'app.example.test', `chd_${rotation}`, 'rotated', now + rotation);
  t.is(tokens.length, retiredPerDomain);
  t.is(matchRetired(tokens, 'chd_0', now + day), undefined, 'the oldest rotations are forgotten first');
  t.truthy(matchRetired(tokens, `chd_${retiredPerDomain + 2}`, now + day));

  let many: RetiredToken[] = [];
  for (let domain = 0; domain < retiredInAll + 5; domain++)
    many.push({ name: `d${domain}.example.test`, sha256: retiredDigest(`chd_${domain}`), reason: 'removed', retired_at: new Date(now).toISOString() });
  many = withRetired(many, 'last.example.test', 'chd_last', 'removed', now);
  t.is(many.length, retiredInAll);
  t.is(many.at(-1)?.name, 'last.example.test');
});

test('the 401 wording of a rotated and of a removed token is what the agent recognises as retired; a plain refusal is not', (t) => {
  const rotated = retiredTokenMessage({ name: 'app.example.test', sha256: retiredDigest('x'), reason: 'rotated', retired_at: '2026-12-01T12:00:00.000Z' });
  const removed = retiredTokenMessage({ name: 'app.example.test', sha256: retiredDigest('x'), reason: 'removed', retired_at: '2026-12-01T12:00:00.000Z' });
  t.is(rotated, "this token was replaced (rotated) on 2026-12-01; give certhub-agent the domain's new token");
  t.is(removed, "this token's domain app.example.test was removed from certhub on 2026-12-01; the token is no longer valid");
  t.true(isRetiredTokenReason(rotated) && isRetiredTokenReason(removed));
  t.false(isRetiredTokenReason('invalid token'));
  const failure = statusFailure(401, JSON.stringify({ error: rotated }), undefined, 'app.example.test', 'https://certhub.example.test');
  t.true(failure.retired);
  t.regex(failure.message, /refused the token for app\.example\.test \(HTTP 401\): this token was replaced \(rotated\) on 2026-12-01/);
  t.false(statusFailure(401, JSON.stringify({ error: 'invalid token' }), undefined, 'app.example.test', 'https://certhub.example.test').retired);
});

test('the replica finds a retired token by full name or label, removed domains included, until its list is emptied', (t) => {
  const replica = new DomainReplica('example.test');
  const tokens = withRetired([], 'web.example.test', 'chd_web', 'removed', now);
  replica.apply({ type: 'retired', name: 'web.example.test', tokens });
  t.is(replica.retiredToken('web', 'chd_web', now)?.reason, 'removed');
  t.is(replica.retiredToken('WEB.example.test.', 'chd_web', now)?.reason, 'removed');
  t.is(replica.retiredToken('web', 'chd_guess', now), undefined);
  t.is(replica.retiredToken('web', 'chd_web', now + retiredTokenKeepMs), undefined, 'expired in the replica too');
  replica.apply({ type: 'retired', name: 'web.example.test', tokens: [] });
  t.is(replica.retiredToken('web', 'chd_web', now), undefined);
});

test('a fetch with a retired token is logged once an hour per domain and client', (t) => {
  let clock = now;
  const log = new RetiredFetchLog(() => clock);
  t.true(log.due('app.example.test', '192.0.2.1'));
  t.false(log.due('app.example.test', '192.0.2.1'));
  t.true(log.due('app.example.test', '192.0.2.2'), 'another client');
  t.true(log.due('web.example.test', '192.0.2.1'), 'another domain');
  clock += retiredFetchLogGapMs - 1;
  t.false(log.due('app.example.test', '192.0.2.1'));
  clock += 1;
  t.true(log.due('app.example.test', '192.0.2.1'));
});
