// A CA that takes its time to issue a finalized order (test/cert/fixtures/acme/processing-ca.ts in
// front of Pebble): the order is polled as the CA's Retry-After asks, past acme-client's 12 polls;
// past the wait's deadline the attempt ends with ERR_ACME_PROCESSING, the order kept in the journal
// with its key, and the next attempt resumes it without a new order. A paused identifier (the same
// layer refuses its newOrder as boulder does) ends the order with the CA's unpause URL.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { openAcmeAccount } from '../../../actors/cert/acme/account.js';
import { AcmeOrderError } from '../../../actors/cert/acme/errors.js';
import { IssuanceProcessingError } from '../../../actors/cert/acme/issuance-wait.js';
import { OrderJournal } from '../../../actors/cert/acme/order-journal.js';
import { issueCertificate, type IssueContext } from '../../../actors/cert/acme/order.js';
import { startProcessingCa, type ProcessingCa } from '../fixtures/acme/processing-ca.js';
import { withAcme, type AcmeFixture } from '../helpers/acme.js';
import { FileDocuments } from '../../../actors/cert/store/documents.js';

async function throughLayer(t: ExecutionContext, fixture: AcmeFixture, folder: string): Promise<{ ca: ProcessingCa; context: IssueContext }> {
  const ca = await startProcessingCa(fixture.pebble);
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

test('an order held in processing is polled as Retry-After asks, past 12 polls, and issued', withAcme, async (t, fixture) => {
  const { ca, context } = await throughLayer(t, fixture, 'acme-slow');
  ca.holdIssuance(14, 0);
  const name = `slow.${fixture.powerdns.zone}`;
  const issued = await issueCertificate({ name, keyType: 'ecdsa-p256' }, { ...context, issuance: { minMs: 50 } });
  t.is(issued.name, name);
  t.is(ca.processingAnswers.filter((answer) => answer.held).length, 14, 'every held answer was waited out');
  t.is(ca.newOrders, 1);
});

test('the pause between polls follows Retry-After', withAcme, async (t, fixture) => {
  const { ca, context } = await throughLayer(t, fixture, 'acme-retry-after');
  ca.holdIssuance(2, 1);
  await issueCertificate({ name: `paced.${fixture.powerdns.zone}`, keyType: 'ecdsa-p256' }, { ...context, issuance: { minMs: 50, maxMs: 100 } });
  const held = ca.processingAnswers.filter((answer) => answer.held);
  t.is(held.length, 2);
  const [first, second] = held;
  t.true(first !== undefined && second !== undefined && second.at - first.at >= 950, 'the second poll came a second after the first, as asked');
});

test('past the deadline the order is kept with its key and the next attempt resumes it: no new order', withAcme, async (t, fixture) => {
  const { ca, context } = await throughLayer(t, fixture, 'acme-resume-processing');
  const orders = await OrderJournal.open(new FileDocuments(fixture.dir));
  const name = `resumed.${fixture.powerdns.zone}`;
  ca.holdIssuance(1000, 1);
  const error = await t.throwsAsync(issueCertificate({ name, keyType: 'ecdsa-p256' }, { ...context, orders, issuance: { deadlineMs: 1500 } }), {
    instanceOf: IssuanceProcessingError,
  });
  t.is(String(error.code), 'ERR_ACME_PROCESSING');
  t.is(error.retryAfterMs, 1000, "the CA's Retry-After is carried to the book");
  t.regex(error.message, /still issuing the order/);
  const keptKey = orders.get(name)?.keyPem;
  t.truthy(keptKey, 'the order is kept with the key its CSR was made with');

  ca.holdIssuance(0, 0);
  const reopened = await OrderJournal.open(new FileDocuments(fixture.dir));
  const issued = await issueCertificate({ name, keyType: 'ecdsa-p256' }, { ...context, orders: reopened });
  t.true(issued.keyPem === keptKey, 'issued for the key kept before finalize');
  t.is(ca.newOrders, 1, 'the order was resumed, not made again');
  t.is(reopened.get(name), undefined);
});

test('a paused identifier ends the order with the name and the unpause URL the CA gave', withAcme, async (t, fixture) => {
  const { ca, context } = await throughLayer(t, fixture, 'acme-paused');
  const name = `paused.${fixture.powerdns.zone}`;
  const unpauseUrl = 'https://portal.example/sfe/v1/unpause?jwt=eyJhbGciOiJIUzI1NiJ9.e30.c2ln';
  ca.pause(name, unpauseUrl);
  const error = await t.throwsAsync(issueCertificate({ name, keyType: 'ecdsa-p256' }, context), { instanceOf: AcmeOrderError });
  t.is(error.problemType, 'urn:ietf:params:acme:error:rateLimited');
  t.true(error.message.includes(`the CA has paused ${name} for this account`), error.message);
  t.true(error.message.includes(`unpaused at ${unpauseUrl} `), 'the URL the CA gave, whole');
  t.is(ca.newOrders, 0);
});
