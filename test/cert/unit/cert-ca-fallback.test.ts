// CA fallback (acme.cas, acme.fallback_after): which CA a failing domain's next attempt goes to, and,
// through the domains actor's book on a fake clock, that a domain the first CA keeps failing is issued
// by the next, records which CA issued it, and renews from the first again. And the ARI state of a
// certificate whose CA or account certhub no longer holds is dropped, so `replaces` never names it.
import test from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import { OutpostError } from '../../../src/errors.js';
import { certErrors } from '../../../actors/cert/error-codes.js';
import type { RenewalInfoAnswer } from '../../../actors/cert/acme/protocol.js';
import { caAfterFailure, lastingRefusal, newCertificatePatienceMs } from '../../../actors/cert/domains/ca-fallback.js';
import { newDomainRecord, type DomainRecord } from '../../../actors/cert/domains/record.js';
import { forgetAriState } from '../../../actors/cert/domains/logic.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { day, FakeIssuer, hour, startBook } from '../helpers/domain-book.js';

const start = Date.UTC(2026, 0, 1);
const ca1 = { directoryUrl: 'https://ca-1.test/directory', accountUrl: 'https://ca-1.test/account/1' };
const ca2 = { directoryUrl: 'https://ca-2.test/directory', accountUrl: 'https://ca-2.test/account/7' };
const settings = { cas: [ca1.directoryUrl, ca2.directoryUrl], fallbackAfter: 3 };
const problem = (type: string) => `urn:ietf:params:acme:error:${type}`;

function pending(retry: Partial<DomainRecord['retry']> = {}): DomainRecord {
  const record = newDomainRecord({ name: 'app.example.com', label: 'app', target: '203.0.113.5', record_type: 'A', token: 'chd_x' }, start);
  return { ...record, retry: { ...record.retry, ...retry } };
}

const noProblem = { problemType: undefined, retryAfterMs: undefined };

test('a domain stays at its CA until fallback_after failures in a row, then moves to the next at once', (t) => {
  t.deepEqual(caAfterFailure(pending(), noProblem, start, settings), { ca: 0, caFailures: 1, moved: undefined, atOnce: false });
  t.deepEqual(caAfterFailure(pending({ ca_failures: 1 }), noProblem, start, settings), { ca: 0, caFailures: 2, moved: undefined, atOnce: false });
  t.deepEqual(caAfterFailure(pending({ ca_failures: 2 }), noProblem, start, settings), { ca: 1, caFailures: 0, moved: 'failures', atOnce: true });
  // Past the last CA, the first again, after the usual backoff: two CAs refusing do not loop.
  t.deepEqual(caAfterFailure(pending({ ca: 1, ca_failures: 2 }), noProblem, start, settings), { ca: 0, caFailures: 0, moved: 'failures', atOnce: false });
  t.deepEqual(caAfterFailure(pending({ ca_failures: 9 }), noProblem, start, { cas: [ca1.directoryUrl], fallbackAfter: 3 }), {
    ca: 0,
    caFailures: 10,
    moved: undefined,
    atOnce: false,
  });
});

test('an account problem, or a rate limit past what the domain can wait, moves on at the first refusal', (t) => {
  for (const type of ['accountDoesNotExist', 'unauthorized', 'externalAccountRequired', 'userActionRequired']) {
    t.true(lastingRefusal({ problemType: problem(type), retryAfterMs: undefined }, pending(), start), type);
    t.is(caAfterFailure(pending(), { problemType: problem(type), retryAfterMs: undefined }, start, settings).moved, 'refusal');
  }
  t.false(lastingRefusal({ problemType: problem('serverInternal'), retryAfterMs: undefined }, pending(), start));
  t.false(lastingRefusal({ problemType: problem('rateLimited'), retryAfterMs: undefined }, pending(), start), 'no Retry-After: counted as a failure');
  t.false(lastingRefusal({ problemType: problem('rateLimited'), retryAfterMs: newCertificatePatienceMs }, pending(), start));
  t.true(lastingRefusal({ problemType: problem('rateLimited'), retryAfterMs: newCertificatePatienceMs + 1 }, pending(), start));
  // A renewal waits until its expiry notice: 7 days before the end of a 90-day certificate.
  const issued = { ...pending(), status: 'issued' as const, issued_at: new Date(start).toISOString(), expires_at: new Date(start + 90 * day).toISOString() };
  t.false(lastingRefusal({ problemType: problem('rateLimited'), retryAfterMs: 80 * day }, issued, start));
  t.true(lastingRefusal({ problemType: problem('rateLimited'), retryAfterMs: 84 * day }, issued, start));
});

test('forgetting the ARI state drops the CertID and plans the renewal by the lifetime rule', (t) => {
  const record: DomainRecord = {
    ...pending(),
    status: 'issued',
    issued_at: new Date(start).toISOString(),
    expires_at: new Date(start + 90 * day).toISOString(),
    renewal: {
      due_at: new Date(start + 80 * day).toISOString(),
      basis: 'ari',
      cert_id: 'aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE',
      ari_next_check_at: new Date(start + 6 * hour).toISOString(),
      ari_explanation_url: 'https://ca.test/why',
      expiry_notice_for: null,
    },
  };
  const forgotten = forgetAriState(record, () => 0.5);
  t.is(forgotten.renewal.cert_id, null);
  t.is(forgotten.renewal.ari_next_check_at, null);
  t.is(forgotten.renewal.ari_explanation_url, null);
  t.is(forgotten.renewal.basis, 'lifetime');
  t.true(Date.parse(forgotten.renewal.due_at ?? '') < start + 60 * day, 'a third of the lifetime left');
  t.is(forgetAriState(forgotten), forgotten, 'nothing left to forget: the same record');
});

test('a domain the first CA keeps failing is issued by the second, shows it, and renews from the first', async (t) => {
  const clock = new ManualClock(start);
  const issuer = new FakeIssuer(clock, 90 * day);
  issuer.cas = [ca1, ca2];
  issuer.failures.push('the CA did not answer', 'the CA did not answer', 'the CA did not answer');
  const harness = await startBook(t, { dataDir: await certDataDir(t), clock, lifetimeMs: 90 * day, issuer, fallback: settings });
  await harness.book.add({ name: 'app', target: '203.0.113.5' });
  for (let attempt = 1; attempt < 3; attempt++) {
    await harness.until('app', (view) => view.status === 'error' && harness.issuer.orders.length === attempt);
    clock.advance(7 * hour);
  }
  const issued = await harness.until('app', (view) => view.status === 'issued');
  t.deepEqual(issuer.casOrdered, [0, 0, 0, 1], 'three attempts at the first CA, then the second at once');
  t.is(issued.issued_by, ca2.directoryUrl);
  const stored = await harness.storedRecord('app');
  t.deepEqual(stored.issued_by, { directory_url: ca2.directoryUrl, account_url: ca2.accountUrl });
  t.deepEqual(stored.retry, { failures: 0, ca: 0, ca_failures: 0, next_attempt_at: null, waiting_for: null });
  t.true(harness.logged.some((line) => line.includes(`after 3 failed attempts in a row at ${ca1.directoryUrl}, the next attempt goes to ${ca2.directoryUrl}`)));

  await harness.book.renewNow('app', 'renewed');
  const renewed = await harness.until('app', (view) => view.status === 'issued' && issuer.orders.length === 5);
  t.deepEqual(issuer.casOrdered, [0, 0, 0, 1, 0], 'the renewal starts from the first CA');
  t.is(renewed.issued_by, ca1.directoryUrl);
});

test('an account refusal at the first CA sends the next attempt to the second at once, logged with its problem type', async (t) => {
  const clock = new ManualClock(start);
  const issuer = new FakeIssuer(clock, 90 * day);
  issuer.cas = [ca1, ca2];
  issuer.failures.push(
    new OutpostError(certErrors.ERR_ACME_ORDER, 'acme: creating the order failed: account is deactivated', { problemType: problem('unauthorized') }),
  );
  const harness = await startBook(t, { dataDir: await certDataDir(t), clock, lifetimeMs: 90 * day, issuer, fallback: settings });
  await harness.book.add({ name: 'app', target: '203.0.113.5' });
  const issued = await harness.until('app', (view) => view.status === 'issued');
  t.deepEqual(issuer.casOrdered, [0, 1]);
  t.is(issued.issued_by, ca2.directoryUrl);
  t.true(harness.logged.some((line) => line.includes(`(attempt 1, ${problem('unauthorized')})`)));
  t.true(harness.logged.some((line) => line.includes(`after a refusal that will not pass soon (${problem('unauthorized')})`)));
});

for (const change of ['account', 'directory'] as const) {
  test(`a change of ${change} drops every domain's CertID and ARI state, and the renewal names no replaces`, async (t) => {
    const clock = new ManualClock(start);
    const dataDir = await certDataDir(t);
    const answer: RenewalInfoAnswer = {
      ok: true,
      window: { start: start + 40 * day, end: start + 41 * day },
      explanationUrl: undefined,
      nextCheckAt: start + day,
    };
    const first = new FakeIssuer(clock, 90 * day);
    first.renewalWindow = () => answer;
    const before = await startBook(t, { dataDir, clock, lifetimeMs: 90 * day, issuer: first });
    for (const name of ['app', 'web']) await before.book.add({ name, target: '203.0.113.5' });
    for (const name of ['app', 'web']) await before.until(name, (view) => view.status === 'issued' && view.renewal.basis === 'ari');
    t.not((await before.storedRecord('app')).renewal.cert_id, null);
    await before.book.stop();

    const second = new FakeIssuer(clock, 90 * day);
    second.renewalWindow = () => answer;
    second.cas = change === 'account' ? [{ ...ca1, accountUrl: 'https://ca-1.test/account/2' }] : [ca2];
    const after = await startBook(t, { dataDir, clock, lifetimeMs: 90 * day, issuer: second });
    for (const name of ['app', 'web']) await after.until(name, (view) => view.renewal.basis === 'lifetime');
    for (const name of ['app', 'web']) {
      const record = await after.storedRecord(name);
      t.is(record.renewal.cert_id, null, name);
      t.is(record.renewal.ari_next_check_at, null, name);
    }
    t.true(after.logged.some((line) => line.includes('2 domains hold certificates from a CA or account certhub does not hold now')));
    await after.book.renewNow('app', 'renewed');
    await after.until('app', () => second.orders.length === 1);
    await after.until('app', (view) => view.status === 'issued' && view.issued_by === (second.cas[0]?.directoryUrl ?? ''));
    t.deepEqual(second.replaced, [undefined], 'no replaces with a CertID the new CA or account does not know');
    const renewed = await after.storedRecord('app');
    t.deepEqual(new Set(second.renewalInfoAsked), new Set([renewed.renewal.cert_id]), 'renewalInfo is asked for the new certificate alone');
  });
}
