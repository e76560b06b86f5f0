// Orders against the CA's replacement and rate-limit rules (test/cert/fixtures/acme/replacement-ca.ts in
// front of Pebble): a renewal whose first attempt failed after its order was made resumes that order,
// also after a restart, instead of being refused alreadyReplaced for days; an order that cannot be
// resumed is made again without `replaces`; a slow validation is waited for and its TXT record
// removed only once final; a rateLimited refusal carries its Retry-After of days.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { openAcmeAccount } from '../../../actors/cert/acme/account.js';
import { AcmeOrderError } from '../../../actors/cert/acme/errors.js';
import { OrderJournal } from '../../../actors/cert/acme/order-journal.js';
import { issueCertificate, type IssueContext } from '../../../actors/cert/acme/order.js';
import { nextAttempt } from '../../../actors/cert/domains/backoff.js';
import { ariCertId } from '../../../actors/cert/renewal/ari.js';
import { readCertificateFacts } from '../../../actors/cert/renewal/certificate-facts.js';
import { OutpostError } from '../../../src/errors.js';
import { alreadyReplaced, startReplacementCa, type ReplacementCa } from '../fixtures/acme/replacement-ca.js';
import { withAcme, type AcmeFixture } from '../helpers/acme.js';
import { FileDocuments } from '../../../actors/cert/store/documents.js';

/** The replacement layer in front of the fixture's Pebble, and an order context whose account is registered through it. */
async function throughLayer(t: ExecutionContext, fixture: AcmeFixture, folder: string): Promise<{ ca: ReplacementCa; context: IssueContext }> {
  const ca = await startReplacementCa(fixture.pebble);
  t.teardown(() => ca.close());
  const account = await openAcmeAccount({
    acceptTerms: true,
    directoryUrl: ca.directoryUrl,
    caBundlePem: await readFile(fixture.pebble.caFile, 'utf8'),
    dir: join(fixture.dir, folder),
    generateKey: (keyType) => fixture.generateKey(keyType),
  });
  t.teardown(() => account.close());
  return { ca, context: fixture.issueContext({ account }) };
}

/**
 * The context with the first key generation failing: the attempt fails after its order was made and
 * validated, when it is to be finalized (the order is left ready at the CA).
 */
function keyFailingOnce(context: IssueContext): IssueContext {
  let failed = false;
  return {
    ...context,
    generateKey: (keyType) => {
      if (failed) return context.generateKey(keyType);
      failed = true;
      return Promise.reject(new OutpostError('ERR_INTERNAL', 'the key could not be made'));
    },
  };
}

test('a renewal that failed after its order was made resumes that order after a restart: no alreadyReplaced', withAcme, async (t, fixture) => {
  const { ca, context } = await throughLayer(t, fixture, 'acme-resume');
  const name = `resume.${fixture.powerdns.zone}`;
  const first = await issueCertificate({ name, keyType: 'ecdsa-p256' }, context);
  const replaces = ariCertId(readCertificateFacts(first.certPem));
  const orders = await OrderJournal.open(new FileDocuments(fixture.dir));
  await t.throwsAsync(issueCertificate({ name, keyType: 'ecdsa-p256', replaces }, { ...keyFailingOnce(context), orders }), {
    message: /the key could not be made/,
  });
  t.like(orders.get(name), { replaces }, 'the order is kept with the name');

  // A restart: the journal is read back from its file.
  const reopened = await OrderJournal.open(new FileDocuments(fixture.dir));
  const renewed = await issueCertificate({ name, keyType: 'ecdsa-p256', replaces }, { ...context, orders: reopened });
  t.not(renewed.serialNumber, first.serialNumber);
  t.deepEqual(
    ca.newOrders,
    [
      { replaces: undefined, status: 201 },
      { replaces, status: 201 },
    ],
    'one replacement order, resumed, never refused',
  );
  t.is(reopened.get(name), undefined, 'a finished order is forgotten');
});

test('alreadyReplaced for an order that cannot be resumed (its URL lost): ordered again without replaces', withAcme, async (t, fixture) => {
  const { ca, context } = await throughLayer(t, fixture, 'acme-lost');
  const name = `lost.${fixture.powerdns.zone}`;
  const first = await issueCertificate({ name, keyType: 'ecdsa-p256' }, context);
  const replaces = ariCertId(readCertificateFacts(first.certPem));
  await t.throwsAsync(issueCertificate({ name, keyType: 'ecdsa-p256', replaces }, keyFailingOnce(context)), { message: /the key could not be made/ });
  const renewed = await issueCertificate({ name, keyType: 'ecdsa-p256', replaces }, context);
  t.not(renewed.serialNumber, first.serialNumber);
  t.deepEqual(ca.newOrders, [
    { replaces: undefined, status: 201 },
    { replaces, status: 201 },
    { replaces, status: 409 },
    { replaces: undefined, status: 201 },
  ]);
  t.is(alreadyReplaced, 'urn:ietf:params:acme:error:alreadyReplaced');
});

test('a CA that validates slowly is polled, as its Retry-After says, until final; the TXT record goes only then', withAcme, async (t, fixture) => {
  const { ca, context } = await throughLayer(t, fixture, 'acme-slow');
  const removedAt: number[] = [];
  const dns: IssueContext['dns'] = {
    addTxt: (name, value) => context.dns.addTxt(name, value),
    removeTxt: async (name, value) => {
      removedAt.push(Date.now());
      await context.dns.removeTxt(name, value);
    },
  };
  // More polls than acme-client's 12 attempts, each asking for 0 s more.
  ca.slowValidation(16, 0);
  const issued = await issueCertificate({ name: `slow.${fixture.powerdns.zone}`, keyType: 'ecdsa-p256' }, { ...context, dns, validation: { minMs: 20 } });
  t.regex(issued.certPem, /BEGIN CERTIFICATE/);
  t.true(ca.validation.polls > 16, `polled ${ca.validation.polls} times`);
  t.is(removedAt.length, 1);
  t.true((ca.validation.finalAnsweredAt ?? Infinity) <= (removedAt[0] ?? 0), 'removed after the CA answered the authorization final');
});

test('a rateLimited refusal with a Retry-After of days: the error carries it, and the next attempt is that far', withAcme, async (t, fixture) => {
  const { ca, context } = await throughLayer(t, fixture, 'acme-limited');
  ca.refuseNewOrders = 5 * 86_400;
  const refusal = await t.throwsAsync(issueCertificate({ name: `limited.${fixture.powerdns.zone}`, keyType: 'ecdsa-p256' }, context), {
    instanceOf: AcmeOrderError,
  });
  t.is(refusal.retryAfterSeconds, 5 * 86_400);
  t.is(refusal.problemType, 'urn:ietf:params:acme:error:rateLimited');
  const now = Date.now();
  t.deepEqual(
    nextAttempt(1, now, refusal.retryAfterMs, undefined, () => 0),
    { at: now + 5 * 86_400_000, reason: 'retry_after' },
  );
});
