import { readFile } from 'node:fs/promises';
import test from 'ava';
import { domainStatuses, domainTransitions, nextStatus, transitionTableMarkdown } from '../../../actors/cert/domains/lifecycle.js';
import { classifyTarget, parseDomainName } from '../../../actors/cert/domains/names.js';
import { domainRecordSchema, newDomainRecord } from '../../../actors/cert/domains/record.js';
import { isDomainTokenShape, newAdminKey, newDomainToken } from '../../../actors/cert/domains/token.js';
import { projectPath } from '../../helpers/process.js';
import { OutpostError } from '../../../src/errors.js';
import { badRequestMessage } from '../helpers/refusal.js';

const base = 'example.com';

test('a label and a full name name the same domain, in lower case', (t) => {
  for (const input of ['app', 'APP', 'app.example.com', 'App.Example.Com.', 'app.example.com.']) {
    t.deepEqual(parseDomainName(input, base), { name: 'app.example.com', label: 'app' }, input);
  }
  t.deepEqual(parseDomainName('xn--bcher-kva', base), { name: 'xn--bcher-kva.example.com', label: 'xn--bcher-kva' });
  t.deepEqual(parseDomainName('0-1', base), { name: '0-1.example.com', label: '0-1' });
  t.deepEqual(parseDomainName('a'.repeat(63), base).label.length, 63);
});

test('names outside the base domain, nested names and bad labels are refused with the reason', (t) => {
  t.is(
    badRequestMessage(() => parseDomainName('app.other.org', base)),
    'name "app.other.org" is not under the base domain example.com',
  );
  t.is(
    badRequestMessage(() => parseDomainName('notexample.com', base)),
    'name "notexample.com" is not under the base domain example.com',
  );
  t.is(
    badRequestMessage(() => parseDomainName('example.com', base)),
    'name "example.com" is the base domain itself; give a subdomain such as "app.example.com"',
  );
  t.is(
    badRequestMessage(() => parseDomainName('a.b.example.com', base)),
    'name "a.b.example.com" is nested; only names directly under example.com are managed (e.g. "b.example.com")',
  );
  t.is(
    badRequestMessage(() => parseDomainName('-app', base)),
    'name "-app" has the label "-app", but labels hold only letters, digits and hyphens, and neither start nor end with a hyphen',
  );
  t.is(
    badRequestMessage(() => parseDomainName('app_1', base)),
    'name "app_1" has the label "app_1", but labels hold only letters, digits and hyphens, and neither start nor end with a hyphen',
  );
  t.is(
    badRequestMessage(() => parseDomainName('*', base)),
    'name "*" has the label "*", but labels hold only letters, digits and hyphens, and neither start nor end with a hyphen',
  );
  t.is(
    badRequestMessage(() => parseDomainName('ab--cd', base)),
    'name "ab--cd" has the label "ab--cd", with "--" in its third and fourth characters, which is reserved (only xn-- labels may)',
  );
  t.is(
    badRequestMessage(() => parseDomainName('a'.repeat(64), base)),
    `name "${'a'.repeat(64)}" has a label longer than 63 characters (64)`,
  );
  t.is(
    badRequestMessage(() => parseDomainName('.example.com', base)),
    'name ".example.com" has an empty label',
  );
  t.is(
    badRequestMessage(() => parseDomainName('', base)),
    'give a name: a label such as "app" or a full name such as "app.example.com"',
  );
  t.is(
    badRequestMessage(() => parseDomainName('  ', base)),
    'give a name: a label such as "app" or a full name such as "app.example.com"',
  );
  t.is(
    badRequestMessage(() => parseDomainName(42, base)),
    'give a name: a label such as "app" or a full name such as "app.example.com"',
  );
  const longBase = `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com`;
  t.regex(
    badRequestMessage(() => parseDomainName('a'.repeat(60), longBase)),
    /makes a name longer than 253 characters$/,
  );
});

test('targets: IPv4 -> A, IPv6 -> AAAA (compressed), host name -> CNAME', (t) => {
  t.deepEqual(classifyTarget('203.0.113.5'), { target: '203.0.113.5', record_type: 'A' });
  t.deepEqual(classifyTarget('10.0.0.1'), { target: '10.0.0.1', record_type: 'A' }, 'private addresses are fine: DNS-01 serves internal hosts');
  t.deepEqual(classifyTarget('2001:DB8:0:0:0:0:0:1'), { target: '2001:db8::1', record_type: 'AAAA' });
  t.deepEqual(classifyTarget('::ffff:192.0.2.1'), { target: '::ffff:c000:201', record_type: 'AAAA' });
  t.deepEqual(classifyTarget('Backend.Example.NET.'), { target: 'backend.example.net', record_type: 'CNAME' });
  t.deepEqual(classifyTarget('_svc.hosting.example.net'), { target: '_svc.hosting.example.net', record_type: 'CNAME' });
});

test('anything else is refused with a clear message', (t) => {
  t.is(
    badRequestMessage(() => classifyTarget('1.2.3.256')),
    'target "1.2.3.256" is not a valid IPv4 address',
  );
  t.is(
    badRequestMessage(() => classifyTarget('1.2.3')),
    'target "1.2.3" is not a valid IPv4 address',
  );
  t.is(
    badRequestMessage(() => classifyTarget('2001:db8::g')),
    'target "2001:db8::g" is not a valid IPv6 address',
  );
  t.is(
    badRequestMessage(() => classifyTarget('fe80::1%eth0')),
    'target "fe80::1%eth0" has a zone index (%...), which a DNS record cannot hold',
  );
  t.is(
    badRequestMessage(() => classifyTarget('0.0.0.0')),
    'target 0.0.0.0 is the unspecified address, not one a client can reach',
  );
  t.is(
    badRequestMessage(() => classifyTarget('::')),
    'target :: is the unspecified address, not one a client can reach',
  );
  t.is(
    badRequestMessage(() => classifyTarget('backend')),
    'target "backend" is neither an IP address nor a valid host name: it must be fully qualified (e.g. host.example.net)',
  );
  t.is(
    badRequestMessage(() => classifyTarget('http://backend.example.net/')),
    'target "http://backend.example.net/": a target is an IP address or a host name, not a URL (give backend.example.net)',
  );
  t.is(
    badRequestMessage(() => classifyTarget('https://[2001:db8::1]:8443/x')),
    'target "https://[2001:db8::1]:8443/x": a target is an IP address or a host name, not a URL (give 2001:db8::1)',
  );
  t.is(
    badRequestMessage(() => classifyTarget('')),
    'give a target: an IPv4 address (A record), an IPv6 address (AAAA) or a host name (CNAME)',
  );
  t.is(
    badRequestMessage(() => classifyTarget('back end.example.net')),
    'target "back end.example.net" is neither an IP address nor a valid host name: it has the label "back end"; labels hold letters, digits, hyphens and underscores',
  );
  t.is(
    badRequestMessage(() => classifyTarget('a..example.net')),
    'target "a..example.net" is neither an IP address nor a valid host name: it has an empty label',
  );
  t.is(
    badRequestMessage(() => classifyTarget('app.example.com', 'app.example.com')),
    'target "app.example.com" is the domain itself; a CNAME cannot point to its own name',
  );
  t.is(
    badRequestMessage(() => classifyTarget(null)),
    'give a target: an IPv4 address (A record), an IPv6 address (AAAA) or a host name (CNAME)',
  );
});

test('the lifecycle table: every status can be removed, renewal keeps the material, error retries through pending', async (t) => {
  for (const status of domainStatuses) t.is(nextStatus(status, 'remove'), 'removed');
  t.is(nextStatus('pending', 'start'), 'issuing');
  t.is(nextStatus('issuing', 'issued'), 'issued');
  t.is(nextStatus('issuing', 'failed'), 'error');
  t.is(nextStatus('issued', 'renew'), 'issuing');
  t.is(nextStatus('error', 'retry'), 'pending');
  t.is(nextStatus('issuing', 'interrupted'), 'pending');
  const conflict = t.throws(() => nextStatus('issued', 'issued'), { instanceOf: OutpostError });
  t.is(conflict?.code, 'ERR_CONFLICT');
  t.is(conflict?.message, 'a domain that is issued cannot take the event "issued"');
  t.throws(() => nextStatus('pending', 'renew'), { instanceOf: OutpostError });
  const pairs = domainTransitions.map(({ from, event }) => `${from}/${event}`);
  t.is(new Set(pairs).size, pairs.length, 'each (status, event) pair has one outcome');
  const markdown = transitionTableMarkdown().split('\n');
  t.is(markdown[0], '| from | event | to | when |');
  t.is(markdown.length, domainTransitions.length + 2);
  t.true((await readFile(projectPath('docs/certhub.md'), 'utf8')).includes(transitionTableMarkdown()), 'docs/certhub.md shows the table as the code has it');
});

test('tokens and admin keys: 32 random bytes behind a greppable prefix, never twice the same', (t) => {
  const tokens = new Set(Array.from({ length: 1000 }, () => newDomainToken()));
  t.is(tokens.size, 1000);
  for (const token of tokens) {
    t.true(isDomainTokenShape(token), token);
    t.is(Buffer.from(token.slice(4), 'base64url').length, 32);
  }
  t.regex(newAdminKey(), /^cha_[A-Za-z0-9_-]{43}$/);
  t.false(isDomainTokenShape(newAdminKey()));
  t.false(isDomainTokenShape(`${newDomainToken()}x`));
});

test('a new record is pending with nothing published or issued, and matches the stored schema', (t) => {
  const token = newDomainToken();
  const record = newDomainRecord({ name: 'app.example.com', label: 'app', target: '203.0.113.5', record_type: 'A', token }, Date.UTC(2025, 0, 2, 3, 4, 5));
  t.like(record, {
    status: 'pending',
    error: null,
    created_at: '2025-01-02T03:04:05.000Z',
    issued_at: null,
    expires_at: null,
    last_fetch: null,
    published: null,
    token,
  });
  t.deepEqual(domainRecordSchema.parse(JSON.parse(JSON.stringify(record))), record);
  t.false(domainRecordSchema.safeParse({ ...record, status: 'done' }).success);
});

test('international names become their xn-- form; an xn-- label that is not valid punycode is refused', (t) => {
  t.deepEqual(parseDomainName('Bücher', base), { name: 'xn--bcher-kva.example.com', label: 'xn--bcher-kva' });
  t.deepEqual(parseDomainName('bücher.example.com', base), { name: 'xn--bcher-kva.example.com', label: 'xn--bcher-kva' });
  t.deepEqual(parseDomainName('xn--bcher-kva', base), { name: 'xn--bcher-kva.example.com', label: 'xn--bcher-kva' });
  for (const label of ['xn--zz', 'xn--abc', 'xn--a'])
    t.is(
      badRequestMessage(() => parseDomainName(label, base)),
      `name "${label}" has the label "${label}", which is not a valid xn-- (punycode) label`,
    );
  t.regex(
    badRequestMessage(() => parseDomainName('a\u200db', base)),
    /labels hold only letters, digits and hyphens/,
  );
  t.deepEqual(classifyTarget('www.bücher.de'), { target: 'www.xn--bcher-kva.de', record_type: 'CNAME' });
  t.regex(
    badRequestMessage(() => classifyTarget('xn--zz.example.net')),
    /not a valid xn-- \(punycode\) label/,
  );
});
