// The CA's ARI rules as boulder applies them (test/cert/fixtures/acme/ari-rules.ts in the layer in
// front of Pebble, sources in its README): each rule refuses as boulder's wfe does, and an order
// whose `replaces` a CA refuses, for any of those reasons, is made once more without it.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { openAcmeAccount, type AcmeAccount } from '../../../actors/cert/acme/account.js';
import { AcmeOrderError } from '../../../actors/cert/acme/errors.js';
import { issueCertificate, type IssueContext } from '../../../actors/cert/acme/order.js';
import { ariCertId } from '../../../actors/cert/renewal/ari.js';
import { readCertificateFacts } from '../../../actors/cert/renewal/certificate-facts.js';
import { malformed, rateLimited, startReplacementCa, unauthorized, type ReplacementCa } from '../fixtures/acme/replacement-ca.js';
import { withAcme, type AcmeFixture } from '../helpers/acme.js';

interface Layer {
  ca: ReplacementCa;
  /** An account registered through the layer, in its own folder. */
  account: (folder: string) => Promise<AcmeAccount>;
  context: (account: AcmeAccount, log?: string[]) => IssueContext;
}

async function throughLayer(t: ExecutionContext, fixture: AcmeFixture): Promise<Layer> {
  const ca = await startReplacementCa(fixture.pebble);
  t.teardown(() => ca.close());
  const caBundlePem = await readFile(fixture.pebble.caFile, 'utf8');
  return {
    ca,
    account: async (folder) => {
      const account = await openAcmeAccount({
        acceptTerms: true,
        directoryUrl: ca.directoryUrl,
        caBundlePem,
        dir: join(fixture.dir, folder),
        generateKey: (keyType) => fixture.generateKey(keyType),
      });
      t.teardown(() => account.close());
      return account;
    },
    context: (account, log) =>
      fixture.issueContext({
        account,
        log: (message) => {
          log?.push(message);
          t.log(message);
        },
      }),
  };
}

/** The two halves of a CertID: base64url of the authority key identifier, base64url of the serial. */
function certIdParts(certPem: string): [string, string] {
  return ariCertId(readCertificateFacts(certPem)).split('.') as [string, string];
}

/** A newOrder for `names` naming `replaces`, sent as it is: the CA's refusal, or undefined when it made the order. */
async function orderReplacing(account: AcmeAccount, names: string[], replaces: string): Promise<unknown> {
  try {
    // acme-client's types lack RFC 9773's field; it posts the payload as given.
    const payload = { identifiers: names.map((value) => ({ type: 'dns', value })), replaces };
    await account.connection.run(() => account.client.createOrder(payload));
    return undefined;
  } catch (error) {
    return error;
  }
}

test('renewalInfo: 200 for a certificate the CA issued, 404 for a CertID it does not know, 400 for one badly encoded', withAcme, async (t, fixture) => {
  const { ca, account, context } = await throughLayer(t, fixture);
  const issued = await issueCertificate({ name: `info.${fixture.powerdns.zone}`, keyType: 'ecdsa-p256' }, context(await account('a')));
  const [keyId, serial] = certIdParts(issued.certPem);
  const ask = async (certId: string) => (await fixture.pebble.get(`${new URL(ca.directoryUrl).origin}/renewal-info/${certId}`)).status;

  t.is(await ask(`${keyId}.${serial}`), 200);
  t.is(await ask(`${keyId}.${randomBytes(16).toString('base64url')}`), 404, 'a serial the CA never issued');
  t.like(ca.refusals.at(-1), { status: 404, type: malformed, detail: 'Requested certificate was not found' });
  t.is(await ask(`${randomBytes(20).toString('base64url')}.${serial}`), 404, 'an issuer the CA does not have');
  t.regex(ca.refusals.at(-1)?.detail ?? '', /did not match a known issuer/);
  t.is(await ask(`${keyId}=.${serial}`), 400, 'padding');
  t.like(ca.refusals.at(-1), { status: 400, type: malformed });
  t.regex(ca.refusals.at(-1)?.detail ?? '', /not base64url-encoded or contained padding/);
  t.is(await ask(`${keyId}${serial}`), 400, 'no dot');
  t.like(ca.refusals.at(-1), { status: 400, type: malformed, detail: 'While parsing ARI CertID an error occurred :: Invalid path' });
});

test('replaces naming an unknown issuer, an unknown serial, another account or other names is refused as boulder does', withAcme, async (t, fixture) => {
  const { ca, account, context } = await throughLayer(t, fixture);
  const owner = await account('owner');
  const name = `owned.${fixture.powerdns.zone}`;
  const issued = await issueCertificate({ name, keyType: 'ecdsa-p256' }, context(owner));
  const [keyId, serial] = certIdParts(issued.certPem);
  const refusalOf = async (requester: AcmeAccount, names: string[], replaces: string) => {
    t.true((await orderReplacing(requester, names, replaces)) instanceof Error, `${replaces} refused`);
    return ca.refusals.at(-1);
  };

  t.like(await refusalOf(owner, [name], `${randomBytes(20).toString('base64url')}.${serial}`), { status: 404, type: malformed });
  t.regex(ca.refusals.at(-1)?.detail ?? '', /^Could not validate ARI 'replaces' field :: .*did not match a known issuer$/);
  t.like(await refusalOf(owner, [name], `${keyId}.${randomBytes(16).toString('base64url')}`), { status: 404, type: malformed });
  t.regex(ca.refusals.at(-1)?.detail ?? '', /request included `replaces` field, but no current certificate with serial "[0-9a-f]{36}" exists/);
  // boulder answers a serial that is not base64url with NotFoundError (404), unlike the key identifier (400).
  t.like(await refusalOf(owner, [name], `${keyId}.=${serial}`), { status: 404, type: malformed });
  t.regex(ca.refusals.at(-1)?.detail ?? '', /serial number was not base64url-encoded or contained padding/);
  t.like(await refusalOf(await account('other'), [name], `${keyId}.${serial}`), {
    status: 403,
    type: unauthorized,
    detail:
      "Could not validate ARI 'replaces' field :: while checking that this order is a replacement: requester account did not request the certificate being replaced by this order",
  });
  t.like(await refusalOf(owner, [`elsewhere.${fixture.powerdns.zone}`], `${keyId}.${serial}`), { status: 400, type: malformed });
  t.regex(ca.refusals.at(-1)?.detail ?? '', /identifiers in this order do not match any identifiers in the certificate being replaced/);
  t.is(await orderReplacing(owner, [name], `${keyId}.${serial}`), undefined, 'the owner, for its name: accepted');
});

test(
  'a renewal whose replaces the CA refuses (another account, an unknown issuer) is ordered once more without it, logged with the problem type',
  withAcme,
  async (t, fixture) => {
    const { ca, account, context } = await throughLayer(t, fixture);
    const name = `moved.${fixture.powerdns.zone}`;
    const first = await issueCertificate({ name, keyType: 'ecdsa-p256' }, context(await account('first')));
    const replaces = ariCertId(readCertificateFacts(first.certPem));
    const log: string[] = [];
    const renewed = await issueCertificate({ name, keyType: 'ecdsa-p256', replaces }, context(await account('second'), log));
    t.not(renewed.serialNumber, first.serialNumber);
    t.deepEqual(ca.newOrders.slice(1), [
      { replaces, status: 403 },
      { replaces: undefined, status: 201 },
    ]);
    t.true(
      log.some((line) => line.includes(`(${unauthorized})`) && line.includes('ordering without "replaces"')),
      log.join('\n'),
    );

    const strange = `${randomBytes(20).toString('base64url')}.${replaces.split('.')[1] ?? ''}`;
    await issueCertificate({ name, keyType: 'ecdsa-p256', replaces: strange }, context(await account('first')));
    t.deepEqual(ca.newOrders.slice(3), [
      { replaces: strange, status: 404 },
      { replaces: undefined, status: 201 },
    ]);
  },
);

test(
  'a rateLimited refusal of a renewal naming replaces is not sent again without it: the refusal stands, with its Retry-After',
  withAcme,
  async (t, fixture) => {
    const { ca, account, context } = await throughLayer(t, fixture);
    const name = `limited.${fixture.powerdns.zone}`;
    const owner = await account('owner');
    const first = await issueCertificate({ name, keyType: 'ecdsa-p256' }, context(owner));
    ca.refuseNewOrders = 3600;
    const replaces = ariCertId(readCertificateFacts(first.certPem));
    const refusal = await t.throwsAsync(issueCertificate({ name, keyType: 'ecdsa-p256', replaces }, context(owner)), { instanceOf: AcmeOrderError });
    t.is(refusal.problemType, rateLimited);
    t.deepEqual(ca.newOrders.slice(1), [{ replaces, status: 429 }]);
  },
);
