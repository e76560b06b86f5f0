// ACME profiles against Pebble with the profiles layer in front of it (test/cert/fixtures/acme/
// profiles-ca.ts, Let's Encrypt's profiles and lifetimes): an order naming a profile is sent with it
// and its certificate lives that profile's lifetime; a profile the CA does not list fails before any
// order with the ones it does; a CA whose directory lists none is sent no profile. Then certhub run
// on the same stack: the admin API takes a domain's profile, refuses one the CA does not list (400
// naming those it does), shows it, and changes it.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { openAcmeAccount } from '../../../actors/cert/acme/account.js';
import { AcmeOrderError } from '../../../actors/cert/acme/errors.js';
import { issueCertificate, type IssueContext } from '../../../actors/cert/acme/order.js';
import { invalidProfile } from '../../../actors/cert/acme/profiles.js';
import { startCertStack, stopCertStack } from '../../helpers/cert-stack.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addDomain, getDomain, powerdnsSection, settled, waitForDomain } from '../../helpers/certhub-domains.js';
import { letsEncryptProfiles, startProfilesCa, type ProfilesCa, type ProfilesCaOptions } from '../fixtures/acme/profiles-ca.js';
import { withAcme, type AcmeFixture } from '../helpers/acme.js';

const hour = 3_600_000;

async function throughLayer(t: ExecutionContext, fixture: AcmeFixture, options: ProfilesCaOptions = {}): Promise<{ ca: ProfilesCa; context: IssueContext }> {
  const ca = await startProfilesCa(fixture.pebble, options);
  t.teardown(() => ca.close());
  const account = await openAcmeAccount({
    acceptTerms: true,
    directoryUrl: ca.directoryUrl,
    caBundlePem: await readFile(fixture.pebble.caFile, 'utf8'),
    dir: join(fixture.dir, 'acme-profiles'),
    generateKey: (keyType) => fixture.generateKey(keyType),
  });
  t.teardown(() => account.close());
  return { ca, context: fixture.issueContext({ account }) };
}

const lifetimeOf = (issued: { notBefore: string; notAfter: string }) => Date.parse(issued.notAfter) - Date.parse(issued.notBefore);

test('an order names its profile, and its certificate lives that profile lifetime', withAcme, async (t, fixture) => {
  const { ca, context } = await throughLayer(t, fixture);
  const shortlived = await issueCertificate({ name: `short.${fixture.powerdns.zone}`, keyType: 'ecdsa-p256', profile: 'shortlived' }, context);
  t.is(lifetimeOf(shortlived), letsEncryptProfiles.shortlived!.lifetimeMs);
  t.is(lifetimeOf(shortlived), 160 * hour);
  const tlsserver = await issueCertificate({ name: `server.${fixture.powerdns.zone}`, keyType: 'ecdsa-p384', profile: 'tlsserver' }, context);
  t.is(lifetimeOf(tlsserver), 45 * 24 * hour);
  const classic = await issueCertificate({ name: `plain.${fixture.powerdns.zone}`, keyType: 'rsa-3072' }, context);
  t.is(lifetimeOf(classic), 90 * 24 * hour, 'no profile: the CA default, classic');
  t.deepEqual(
    ca.newOrders.map(({ profile, status }) => ({ profile, status })),
    [
      { profile: 'shortlived', status: 201 },
      { profile: 'tlsserver', status: 201 },
      { profile: undefined, status: 201 },
    ],
  );
});

test('a profile the CA does not list fails before any order, naming the ones it lists', withAcme, async (t, fixture) => {
  const { ca, context } = await throughLayer(t, fixture);
  const error = await t.throwsAsync(issueCertificate({ name: `odd.${fixture.powerdns.zone}`, keyType: 'ecdsa-p256', profile: 'forever' }, context), {
    instanceOf: AcmeOrderError,
  });
  t.is(error?.message, 'acme: the CA does not offer profile "forever"; it offers classic, shortlived and tlsserver');
  t.is(error?.problemType, invalidProfile);
  t.deepEqual(ca.newOrders, [], 'no newOrder was sent');
});

test('a CA whose directory lists no profiles is sent none', withAcme, async (t, fixture) => {
  const { ca, context } = await throughLayer(t, fixture, { offerProfiles: false });
  const issued = await issueCertificate({ name: `bare.${fixture.powerdns.zone}`, keyType: 'ecdsa-p256', profile: 'shortlived' }, context);
  t.truthy(issued.certPem);
  t.deepEqual(
    ca.newOrders.map(({ profile }) => profile),
    [undefined],
  );
});

test('certhub run: a domain takes a profile the CA lists, refuses another with the list, shows and changes it', async (t) => {
  const stack = await startCertStack();
  try {
    const ca = await startProfilesCa(stack.pebble);
    t.teardown(() => ca.close());
    const dataDir = await certhubDataDir(t, {
      dns: powerdnsSection(stack.powerdns),
      acme: { directory_url: ca.directoryUrl, ca_bundle: stack.pebble.caFile, accept_terms: true, profile: 'tlsserver' },
      propagation: { nameservers: [stack.powerdns.nameserver], timeout_seconds: 30 },
    });
    const server = await startCerthub(t, dataDir, []);

    const refused = await server.admin('api/admin/domains', { method: 'POST', body: { name: 'odd', target: '203.0.113.7', profile: 'forever' } });
    t.is(refused.status, 400);
    t.deepEqual(await refused.json(), { error: 'the CA does not offer profile "forever"; it offers classic, shortlived and tlsserver' });
    t.is((await server.admin('api/admin/domains/odd')).status, 404, 'nothing was added');

    const shortAdded = await server.admin('api/admin/domains', { method: 'POST', body: { name: 'short', target: '203.0.113.5', profile: 'shortlived' } });
    t.is(shortAdded.status, 201);
    t.like(await shortAdded.json(), { name: 'short.example.test', profile: 'shortlived' });
    const plain = await addDomain(server, 'plain', '203.0.113.6');
    t.is(plain.profile, null, 'no profile of its own: acme.profile');

    const short = await waitForDomain(server, 'short', settled, 60_000);
    t.is(short.status, 'issued', short.error ?? '');
    t.is(Date.parse(short.expires_at ?? '') - Date.parse(short.issued_at ?? ''), 160 * hour);
    const defaulted = await waitForDomain(server, 'plain', settled, 60_000);
    t.is(defaulted.status, 'issued', defaulted.error ?? '');
    t.is(Date.parse(defaulted.expires_at ?? '') - Date.parse(defaulted.issued_at ?? ''), 45 * 24 * hour, 'acme.profile: tlsserver');
    t.deepEqual(ca.newOrders.map(({ profile }) => profile).sort(), ['shortlived', 'tlsserver']);

    const badChange = await server.admin('api/admin/domains/plain', { method: 'PATCH', body: { profile: 'forever' } });
    t.is(badChange.status, 400);
    t.regex(((await badChange.json()) as { error: string }).error, /it offers classic, shortlived and tlsserver/);
    const changed = await server.admin('api/admin/domains/plain', { method: 'PATCH', body: { profile: 'classic' } });
    t.is(changed.status, 200);
    t.like(await changed.json(), { profile: 'classic', status: 'issued', target: '203.0.113.6' });
    t.is((await getDomain(server, 'plain')).profile, 'classic');
    const cleared = await server.admin('api/admin/domains/short', { method: 'PATCH', body: { profile: null } });
    t.like(await cleared.json(), { profile: null });
  } finally {
    await stopCertStack(stack);
  }
});
