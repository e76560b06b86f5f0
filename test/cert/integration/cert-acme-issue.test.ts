// Real certificates from Pebble through PowerDNS (and through the Cloudflare double): the chain
// verifies against Pebble's root with openssl, the key matches, no challenge record is left.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { openAcmeAccount } from '../../../actors/cert/acme/account.js';
import { issueCertificate } from '../../../actors/cert/acme/order.js';
import { createDnsProvider } from '../../../actors/cert/dns/providers/create.js';
import { startCloudflareDouble } from '../fixtures/cloudflare/cloudflare-double.js';
import { withAcme } from '../helpers/acme.js';
import { opensslCheck } from '../../helpers/openssl.js';

test("a certificate issued through PowerDNS verifies against Pebble's root and matches its key", withAcme, async (t, fixture) => {
  const name = `app.${fixture.powerdns.zone}`;
  const context = fixture.issueContext();
  const issued = await issueCertificate({ name, keyType: 'ecdsa-p256' }, context);
  const verdict = await opensslCheck(issued, await fixture.pebble.root());
  t.regex(verdict.verify, /leaf\.pem: OK$/);
  t.true(verdict.keyMatches);
  t.is(issued.name, name);
  t.true(Date.parse(issued.notAfter) > Date.now());
  t.deepEqual(await fixture.powerdns.dig(`_acme-challenge.${name}`, 'TXT'), []);
  t.deepEqual(await context.dns.list(`_acme-challenge.${name}`), []);
});

test('an RSA key type gives an RSA certificate', withAcme, async (t, fixture) => {
  const issued = await issueCertificate({ name: `rsa.${fixture.powerdns.zone}`, keyType: 'rsa-2048' }, fixture.issueContext());
  const verdict = await opensslCheck(issued, await fixture.pebble.root());
  t.regex(verdict.verify, /: OK$/);
  t.true(verdict.keyMatches);
  t.regex(issued.keyPem, /^-----BEGIN PRIVATE KEY-----/);
});

test('through the Cloudflare double: Pebble validates what the double wrote into PowerDNS', withAcme, async (t, fixture) => {
  const cloudflare = await startCloudflareDouble({ zone: fixture.powerdns.zone, powerdns: fixture.powerdns });
  try {
    const dns = createDnsProvider({ provider: 'cloudflare', api_token: cloudflare.token, zone_id: cloudflare.zoneId, api_url: cloudflare.apiUrl });
    const name = `cf.${fixture.powerdns.zone}`;
    const issued = await issueCertificate({ name, keyType: 'ecdsa-p256' }, fixture.issueContext({ dns }));
    t.regex((await opensslCheck(issued, await fixture.pebble.root())).verify, /: OK$/);
    t.true(
      cloudflare.requests.some((request) => request.method === 'POST' && request.status === 200),
      'the TXT was created through the double',
    );
    t.deepEqual(cloudflare.records(), []);
    // The double propagates the deletion after its API answered, as Cloudflare does.
    await cloudflare.propagated();
    t.deepEqual(await fixture.powerdns.dig(`_acme-challenge.${name}`, 'TXT'), []);
  } finally {
    await cloudflare.close();
  }
});

test('a CNAME on _acme-challenge sends the TXT to the zone it points into', withAcme, async (t, fixture) => {
  const { powerdns } = fixture;
  await powerdns.createZone('validation.test');
  const records = createDnsProvider({ provider: 'powerdns', server_url: powerdns.apiUrl, api_token: powerdns.apiKey, zone: powerdns.zone });
  const challenges = createDnsProvider({ provider: 'powerdns', server_url: powerdns.apiUrl, api_token: powerdns.apiKey, zone: 'validation.test' });
  const name = `delegated.${powerdns.zone}`;
  await records.setAddress(`_acme-challenge.${name}`, 'delegated.validation.test');
  const logged: string[] = [];
  const issued = await issueCertificate({ name, keyType: 'ecdsa-p256' }, fixture.issueContext({ dns: challenges, log: (line) => logged.push(line) }));
  t.regex((await opensslCheck(issued, await fixture.pebble.root())).verify, /: OK$/);
  t.true(logged.includes('acme: TXT delegated.validation.test written, waiting for the authoritative nameservers'), logged.join('\n'));
  t.deepEqual(await powerdns.dig('delegated.validation.test', 'TXT'), []);
});

test('one name, then 20 names at once: every certificate verifies (times logged)', withAcme, async (t, fixture) => {
  const root = await fixture.pebble.root();
  const context = fixture.issueContext({ log: () => {} });
  const oneStarted = performance.now();
  await issueCertificate({ name: `single.${fixture.powerdns.zone}`, keyType: 'ecdsa-p256' }, context);
  const oneMs = performance.now() - oneStarted;
  const names = Array.from({ length: 20 }, (_, index) => `bulk${index}.${fixture.powerdns.zone}`);
  const manyStarted = performance.now();
  const issued = await Promise.all(names.map((name) => issueCertificate({ name, keyType: 'ecdsa-p256' }, context)));
  const manyMs = performance.now() - manyStarted;
  t.log(`add-to-issued: one name ${oneMs.toFixed(0)} ms; 20 names at once ${manyMs.toFixed(0)} ms`);
  for (const certificate of issued) t.regex((await opensslCheck(certificate, root)).verify, /: OK$/, certificate.name);
  t.deepEqual(
    issued.map((certificate) => certificate.name),
    names,
  );
  for (const name of names) t.deepEqual(await fixture.powerdns.dig(`_acme-challenge.${name}`, 'TXT'), [], name);
});

test('the account key is made once, kept 0600 in a 0700 folder, and the account loaded after', withAcme, async (t, fixture) => {
  const dir = join(fixture.dir, 'acme');
  t.is((await stat(dir)).mode & 0o777, 0o700);
  t.is((await stat(join(dir, 'account.key'))).mode & 0o777, 0o600);
  const key = await readFile(join(dir, 'account.key'), 'utf8');
  let keysMade = 0;
  const again = await openAcmeAccount({
    acceptTerms: true,
    directoryUrl: fixture.pebble.directoryUrl,
    caBundlePem: await readFile(fixture.pebble.caFile, 'utf8'),
    dir,
    generateKey: (keyType) => ((keysMade += 1), fixture.generateKey(keyType)),
  });
  try {
    t.is(again.accountUrl, fixture.account.accountUrl);
    t.is(keysMade, 0);
    t.is(await readFile(join(dir, 'account.key'), 'utf8'), key);
    const issued = await issueCertificate({ name: `reloaded.${fixture.powerdns.zone}`, keyType: 'ecdsa-p256' }, fixture.issueContext({ account: again }));
    t.regex((await opensslCheck(issued, await fixture.pebble.root())).verify, /: OK$/);
  } finally {
    again.close();
  }
});
