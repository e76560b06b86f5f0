// The operator's lifecycle actions on an issued domain (domains/operator-actions.ts): renew now,
// re-key (the order left open is dropped, so the key is new), revoke with a reason (the CA's answer
// given back, a new certificate ordered at once); each is logged, and any state but issued refuses it.
import test from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import { OutpostError } from '../../../src/errors.js';
import { loggerFrom } from '../../../src/log/record.js';
import { OperatorActions } from '../../../actors/cert/domains/operator-actions.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { day, startBook } from '../helpers/domain-book.js';

async function issuedBook(t: Parameters<typeof startBook>[0]) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const harness = await startBook(t, { dataDir: await certDataDir(t), clock, lifetimeMs: 90 * day });
  const logged: string[] = [];
  const actions = new OperatorActions(
    harness.book,
    harness.issuer,
    loggerFrom('domains', (record) => logged.push(`${record.level}: ${record.message}`)),
  );
  await harness.book.add({ name: 'app', target: '203.0.113.5' });
  const first = await harness.until('app', (view) => view.status === 'issued');
  return { harness, actions, logged, first };
}

test('renew now orders a new certificate at once; the old one is served until it arrives', async (t) => {
  const { harness, actions, logged, first } = await issuedBook(t);
  const issuing = harness.nextPublished('app', (view) => view.status === 'issuing');
  const answer = await actions.renew('app');
  t.is(answer.status, 'issued');
  await issuing;
  const renewed = await harness.until('app', (view) => view.status === 'issued');
  t.not(renewed.renewal.due_at, first.renewal.due_at);
  t.is(harness.issuer.orders.length, 2);
  t.deepEqual(logged, ['info: renewing app.example.com now, as the operator asked']);
});

test('re-key drops the order left open for the name before renewing', async (t) => {
  const { harness, actions, logged } = await issuedBook(t);
  const renewed = harness.nextPublished('app', (view) => view.status === 'issuing');
  await actions.rekey('app');
  await renewed;
  t.deepEqual(harness.issuer.forgotten, ['app.example.com']);
  t.regex(logged[0] ?? '', /re-keying app\.example\.com now, as the operator asked: its next certificate has a new key/);
});

test("revoke sends the served certificate with its reason, gives the CA's answer back and renews", async (t) => {
  const { harness, actions, logged } = await issuedBook(t);
  const served = harness.replica.get('app.example.com')?.material?.cert_pem;
  const renewed = harness.nextPublished('app', (view) => view.status === 'issuing');
  const answer = await actions.revoke('app', 'keyCompromise');
  t.is(answer.ca_answer, 'revoked (reason keyCompromise)');
  t.deepEqual(harness.issuer.revoked, [{ certPem: served ?? '', reason: 'keyCompromise' }]);
  await renewed;
  t.regex(logged[0] ?? '', /^warn: revoked the certificate of app\.example\.com \(reason keyCompromise\), as the operator asked/);
});

test('a domain that is not issued refuses every action, naming its state', async (t) => {
  const { harness, actions } = await issuedBook(t);
  harness.issuer.hold();
  await actions.renew('app');
  await harness.until('app', (view) => view.status === 'issuing');
  for (const attempt of [actions.renew('app'), actions.rekey('app'), actions.revoke('app', 'superseded')]) {
    const refusal = await t.throwsAsync(attempt, { instanceOf: OutpostError });
    t.is(refusal.code, 'ERR_CONFLICT');
    t.regex(refusal.message, /app\.example\.com is issuing: only an issued domain can be/);
  }
  t.deepEqual(harness.issuer.revoked, []);
  harness.issuer.resume();
});
