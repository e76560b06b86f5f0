// The CA budget as the domains actor's book applies it, on a fake clock with a budget of 2 new
// certificates: a third add waits in pending for its slot and starts when the slot comes; renewals
// are not counted; budget.json is written with each new certificate and counts again after a restart.
import test from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import { loggerFrom } from '../../../src/log/record.js';
import { CertificateBudget, ledgerBudget, readBudgetLedger } from '../../../actors/cert/domains/budget.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { day, hour, startBook } from '../helpers/domain-book.js';
import { FileDocuments } from '../../../actors/cert/store/documents.js';

const start = Date.UTC(2026, 0, 1);
const settings = { certificates: 2, windowMs: 7 * day };

async function budgetOf(dataDir: string, clock: ManualClock) {
  const { ledger, problem } = await readBudgetLedger(new FileDocuments(dataDir));
  if (problem !== undefined) throw new Error(problem);
  return ledgerBudget(
    new CertificateBudget(settings, clock, ledger),
    new FileDocuments(dataDir),
    loggerFrom('budget', () => {}),
  );
}

test('past the budget an add waits in pending for its slot, starts when it comes; renewals are not counted', async (t) => {
  const dataDir = await certDataDir(t);
  const clock = new ManualClock(start);
  const harness = await startBook(t, { dataDir, clock, lifetimeMs: 6 * day, budget: await budgetOf(dataDir, clock) });
  for (const label of ['a', 'b', 'c', 'd']) await harness.book.add({ name: label, target: '203.0.113.5' });
  await harness.until('a', (view) => view.status === 'issued');
  await harness.until('b', (view) => view.status === 'issued');
  const c = await harness.until('c', (view) => view.next_attempt_at !== null);
  const d = await harness.until('d', (view) => view.next_attempt_at !== null);
  t.is(c.status, 'pending');
  t.is((await harness.storedRecord('c')).retry.waiting_for, 'budget');
  const counted = (await readBudgetLedger(new FileDocuments(dataDir))).ledger;
  t.is(counted.length, 2, 'budget.json counts the two new certificates');
  const slotAt = Date.parse(c.next_attempt_at ?? '');
  t.is(slotAt, (counted[0] ?? 0) + settings.windowMs, "c's slot is when the first certificate leaves the window");
  t.true(Date.parse(d.next_attempt_at ?? '') >= slotAt, 'd waits behind c');

  // 6-day certificates are renewed after about 3 days, inside the window: renewals need no slot.
  clock.advance(3.5 * day);
  await harness.until('a', (view) => view.status === 'issued' && harness.issuer.orders.filter((name) => name === 'a.example.com').length === 2);
  await harness.until('b', (view) => view.status === 'issued' && harness.issuer.orders.filter((name) => name === 'b.example.com').length === 2);
  t.is((await readBudgetLedger(new FileDocuments(dataDir))).ledger.length, 2, 'renewals are not counted');
  t.false(harness.issuer.orders.includes('c.example.com'));

  clock.advance(slotAt - hour - clock.now());
  await new Promise((resolve) => setImmediate(resolve));
  t.false(harness.issuer.orders.includes('c.example.com'), 'no order before the slot');
  clock.advance(hour);
  const issued = await harness.until('c', (view) => view.status === 'issued');
  t.is(issued.next_attempt_at, null);
  await harness.until('d', (view) => view.status === 'issued');
  t.is((await readBudgetLedger(new FileDocuments(dataDir))).ledger.length, 2, 'the first two left the window; c and d are counted');
});

test('budget.json keeps counting across a restart', async (t) => {
  const dataDir = await certDataDir(t);
  const clock = new ManualClock(start);
  const before = await startBook(t, { dataDir, clock, lifetimeMs: 90 * day, budget: await budgetOf(dataDir, clock) });
  for (const label of ['a', 'b']) await before.book.add({ name: label, target: '203.0.113.5' });
  await before.until('a', (view) => view.status === 'issued');
  await before.until('b', (view) => view.status === 'issued');
  await before.book.stop();

  clock.advance(day);
  const after = await startBook(t, { dataDir, clock, lifetimeMs: 90 * day, budget: await budgetOf(dataDir, clock) });
  await after.book.add({ name: 'c', target: '203.0.113.5' });
  const c = await after.until('c', (view) => view.next_attempt_at !== null);
  t.is(c.status, 'pending');
  t.is(Date.parse(c.next_attempt_at ?? ''), start + settings.windowMs);
  t.deepEqual(after.issuer.orders, []);
});
