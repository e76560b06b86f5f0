// A domain's name set (domains/name-set.ts): relative and full names, nesting, wildcards, the apex
// behind allow_apex, the CA's limits, overlap with other domains, and which names get records; and
// certificateKind counting a changed set as a new certificate, as the CA does.
import test, { type ExecutionContext } from 'ava';
import { OutpostError } from '../../../src/errors.js';
import {
  addressNames,
  maxNamesPerCertificate,
  parseExtraName,
  parseExtraNames,
  refuseNameOverlap,
  relativeName,
} from '../../../actors/cert/domains/name-set.js';
import { certificateKind } from '../../../actors/cert/domains/logic.js';
import { newDomainRecord } from '../../../actors/cert/domains/record.js';

const base = 'example.com';
const strict = { baseDomain: base, allowApex: false };
const open = { baseDomain: base, allowApex: true };

function refusal(t: ExecutionContext, run: () => unknown, code: 'ERR_BAD_REQUEST' | 'ERR_CONFLICT', pattern: RegExp): void {
  const error = t.throws(run, { instanceOf: OutpostError });
  t.is(error?.code, code);
  t.regex(error?.message ?? '', pattern);
}

test('relative, full, nested and wildcard names read as full names', (t) => {
  t.is(parseExtraName('www.app', strict), 'www.app.example.com');
  t.is(parseExtraName('WWW.App.Example.COM', strict), 'www.app.example.com');
  t.is(parseExtraName('a.b.c.d', strict), 'a.b.c.d.example.com');
  t.is(parseExtraName('*.app', strict), '*.app.example.com');
  t.is(parseExtraName('*.app.example.com.', strict), '*.app.example.com');
  t.is(relativeName('*.app.example.com', base), '*.app');
  t.is(relativeName(base, base), '@');
});

test('the apex and the wildcard at the base only with allow_apex', (t) => {
  refusal(t, () => parseExtraName('@', strict), 'ERR_BAD_REQUEST', /base domain itself, which allow_apex in config\.json does not allow/);
  refusal(t, () => parseExtraName('example.com', strict), 'ERR_BAD_REQUEST', /allow_apex/);
  refusal(t, () => parseExtraName('*', strict), 'ERR_BAD_REQUEST', /wildcard at the base domain/);
  t.is(parseExtraName('@', open), base);
  t.is(parseExtraName('example.com.', open), base);
  t.is(parseExtraName('*', open), '*.example.com');
});

test('a name outside the base domain, a misplaced wildcard and bad labels are refused', (t) => {
  refusal(t, () => parseExtraName('app.other.org.', strict), 'ERR_BAD_REQUEST', /not under the base domain example\.com/);
  refusal(t, () => parseExtraName('a.*.app', strict), 'ERR_BAD_REQUEST', /"\*" after its first label/);
  refusal(t, () => parseExtraName('w*.app', strict), 'ERR_BAD_REQUEST', /"\*" inside a label/);
  refusal(t, () => parseExtraName('-x.app', strict), 'ERR_BAD_REQUEST', /neither start nor end with a hyphen/);
  refusal(t, () => parseExtraName('', strict), 'ERR_BAD_REQUEST', /give a name/);
});

test('the CA limits: 63 octets a label, 253 a name, 100 names a certificate', (t) => {
  t.is(parseExtraName(`${'a'.repeat(63)}.app`, strict), `${'a'.repeat(63)}.app.example.com`);
  refusal(t, () => parseExtraName(`${'a'.repeat(64)}.app`, strict), 'ERR_BAD_REQUEST', /label longer than 63 characters/);
  const long = Array.from({ length: 5 }, () => 'b'.repeat(50)).join('.');
  refusal(t, () => parseExtraName(long, strict), 'ERR_BAD_REQUEST', /longer than 253 characters/);
  const names = (count: number) => Array.from({ length: count }, (_, index) => `n${index}.app`);
  t.is(parseExtraNames(names(maxNamesPerCertificate - 1), 'app.example.com', strict).length, 99);
  refusal(t, () => parseExtraNames(names(maxNamesPerCertificate), 'app.example.com', strict), 'ERR_BAD_REQUEST', /at most 100 names .* this set has 101/);
});

test('a name twice, or the primary name among the extra ones, is refused', (t) => {
  refusal(t, () => parseExtraNames(['www.app', 'WWW.app.example.com'], 'app.example.com', strict), 'ERR_BAD_REQUEST', /listed twice/);
  refusal(t, () => parseExtraNames(['app'], 'app.example.com', strict), 'ERR_BAD_REQUEST', /the domain's own name/);
  refusal(t, () => parseExtraNames('www.app', 'app.example.com', strict), 'ERR_BAD_REQUEST', /a list of names/);
  t.deepEqual(parseExtraNames(undefined, 'app.example.com', strict), []);
});

test('a name of another domain is a 409 naming that domain; its own names are not', (t) => {
  const domains = [
    { name: 'app.example.com', names: ['www.app.example.com', '*.app.example.com'] },
    { name: 'api.example.com', names: [] },
  ];
  refusal(
    t,
    () => refuseNameOverlap(['shop.example.com', 'www.app.example.com'], domains, undefined),
    'ERR_CONFLICT',
    /www\.app\.example\.com is a name of the domain app\.example\.com/,
  );
  refusal(t, () => refuseNameOverlap(['x.example.com', 'api.example.com'], domains, 'app.example.com'), 'ERR_CONFLICT', /domain api\.example\.com/);
  t.notThrows(() => refuseNameOverlap(['app.example.com', '*.app.example.com'], domains, 'app.example.com'));
  // A wildcard and a name it covers are different names: two domains may hold them.
  t.notThrows(() => refuseNameOverlap(['x.app.example.com'], domains, undefined));
});

test('address records: every name but wildcards, wildcards too when asked', (t) => {
  const domain = { name: 'app.example.com', names: ['www.app.example.com', '*.app.example.com'], wildcard_records: false };
  t.deepEqual(addressNames(domain), ['app.example.com', 'www.app.example.com']);
  t.deepEqual(addressNames({ ...domain, wildcard_records: true }), ['app.example.com', 'www.app.example.com', '*.app.example.com']);
});

test('the CA budget: a renewal of the same set is a renewal; a changed set is a new certificate', (t) => {
  const added = newDomainRecord({ name: 'app.example.com', label: 'app', target: '203.0.113.5', record_type: 'A', token: 'chd_x' }, 0);
  t.is(certificateKind(added), 'new');
  const issued = { ...added, status: 'issued' as const, issued_at: new Date(0).toISOString() };
  // A store without issued_names: the certificate covers the name alone.
  t.is(certificateKind(issued), 'renewal');
  t.is(certificateKind({ ...issued, names: ['www.app.example.com'] }), 'new');
  const both = { ...issued, names: ['www.app.example.com'], issued_names: ['app.example.com', 'www.app.example.com'] };
  t.is(certificateKind(both), 'renewal');
  t.is(certificateKind({ ...both, names: [] }), 'new');
});
