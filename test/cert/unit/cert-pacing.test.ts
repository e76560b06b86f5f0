import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { backoffDelay, defaultBackoff, nextAttempt } from '../../../actors/cert/domains/backoff.js';
import { CertificateBudget, ledgerBudget, readBudgetLedger, writeBudgetLedger } from '../../../actors/cert/domains/budget.js';
import { ManualClock } from '../../../src/actor/clock.js';
import { loggerFrom } from '../../../src/log/record.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { FileDocuments } from '../../../actors/cert/store/documents.js';

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;
const week = 7 * day;

test('budget: new orders take slots; past the budget they wait for the oldest certificate to leave the window', (t) => {
  const clock = new ManualClock(100 * day);
  const budget = new CertificateBudget({ certificates: 3, windowMs: week }, clock);
  for (const name of ['a', 'b', 'c']) t.deepEqual(budget.reserve(name, 'new'), { granted: true });
  t.deepEqual(budget.reserve('a', 'new'), { granted: true }, 'asking again holds the same slot');
  t.deepEqual(budget.reserve('d', 'new'), { granted: false, slotAt: clock.now() + week }, 'all slots are orders in flight');
  const aArrived = clock.now();
  budget.commit('a');
  clock.advance(hour);
  budget.release('b');
  t.is(budget.used, 2);
  t.deepEqual(budget.reserve('d', 'new'), { granted: true }, 'the failed order gave its slot back');
  t.deepEqual(budget.reserve('e', 'new'), { granted: false, slotAt: aArrived + week });
  budget.commit('c');
  budget.commit('d');
  t.deepEqual(budget.ledger(), [aArrived, clock.now(), clock.now()]);
  clock.advance(week - hour - 1);
  t.false(budget.reserve('e', 'new').granted);
  clock.advance(1);
  t.deepEqual(budget.reserve('e', 'new'), { granted: true }, 'a left the window');
  t.deepEqual(budget.ledger(), [aArrived + hour, aArrived + hour]);
});

test('budget: renewals are exempt, even when the budget is spent', (t) => {
  const clock = new ManualClock(0);
  const budget = new CertificateBudget({ certificates: 1, windowMs: week }, clock, [0]);
  t.false(budget.reserve('new', 'new').granted);
  t.deepEqual(budget.reserve('old', 'renewal'), { granted: true });
  budget.commit('old');
  t.is(budget.used, 1, 'a renewal is not counted');
});

test('budget: a burst of adds starts as many as fit, the rest wait with successive slot times', async (t) => {
  const clock = new ManualClock(10 * week);
  const start = clock.now();
  const ledger = [start - 6 * day, start - 5 * day, start - 4 * day];
  const dataDir = await certDataDir(t);
  const gate = ledgerBudget(
    new CertificateBudget({ certificates: 5, windowMs: week }, clock, ledger),
    new FileDocuments(dataDir),
    loggerFrom('budget', () => {}),
  );
  const pending = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'].map((name) => ({ name, kind: 'new' as const }));
  // As the book asks: in the order the domains were added, each refused one told how many wait ahead of it.
  const started: string[] = [];
  const waiting: { name: string; slotAt: number }[] = [];
  for (const { name, kind } of [{ name: 'r1', kind: 'renewal' as const }, ...pending]) {
    const reservation = gate.reserve(name, kind, waiting.length);
    if (reservation.granted) started.push(name);
    else waiting.push({ name, slotAt: reservation.slotAt });
  }
  t.deepEqual(started, ['r1', 'p1', 'p2']);
  t.deepEqual(waiting, [
    { name: 'p3', slotAt: start + day },
    { name: 'p4', slotAt: start + 2 * day },
    { name: 'p5', slotAt: start + 3 * day },
    { name: 'p6', slotAt: start + week },
  ]);
});

test('budget: a ledger over a lowered budget waits for enough certificates to leave', (t) => {
  const clock = new ManualClock(week);
  const budget = new CertificateBudget({ certificates: 2, windowMs: week }, clock, [3 * day, 1 * day, 2 * day, 4 * day]);
  t.deepEqual(budget.reserve('x', 'new'), { granted: false, slotAt: 3 * day + week });
  t.deepEqual(budget.ledger(), [1 * day, 2 * day, 3 * day, 4 * day], 'sorted');
});

test('backoff: doubles from 2 minutes to a 6 hour cap, jittered up to a fifth earlier', (t) => {
  t.deepEqual(
    [1, 2, 3, 4, 5].map((failures) => backoffDelay(failures, defaultBackoff, () => 0)),
    [2, 4, 8, 16, 32].map((m) => m * minute),
  );
  t.is(
    backoffDelay(9, defaultBackoff, () => 0),
    6 * hour,
  );
  t.is(
    backoffDelay(1000, defaultBackoff, () => 0),
    6 * hour,
  );
  t.is(
    backoffDelay(1, defaultBackoff, () => 1),
    96_000,
  );
  t.is(
    backoffDelay(0, defaultBackoff, () => 0),
    2 * minute,
    'a first failure counted as 0 is still the first',
  );
  const failedValidationsInFirstHour = (() => {
    let at = 0;
    let count = 0;
    while (at < hour) {
      count++;
      at += backoffDelay(count, defaultBackoff, () => 0);
    }
    return count;
  })();
  t.is(failedValidationsInFirstHour, 5, "at most Let's Encrypt's 5 failed validations per hostname per hour without jitter");
});

test("next attempt: Retry-After wins when longer, clamped to a minute .. seven days (the CA's longest window)", (t) => {
  const now = 1_000_000;
  t.deepEqual(
    nextAttempt(1, now, undefined, defaultBackoff, () => 0),
    { at: now + 2 * minute, reason: 'backoff' },
  );
  t.deepEqual(
    nextAttempt(1, now, hour, defaultBackoff, () => 0),
    { at: now + hour, reason: 'retry_after' },
  );
  t.deepEqual(
    nextAttempt(3, now, minute, defaultBackoff, () => 0),
    { at: now + 8 * minute, reason: 'backoff' },
  );
  t.deepEqual(
    nextAttempt(1, now, 0, defaultBackoff, () => 0),
    { at: now + 2 * minute, reason: 'backoff' },
  );
  t.deepEqual(
    nextAttempt(1, now, 30 * day, defaultBackoff, () => 0),
    { at: now + 7 * day, reason: 'retry_after' },
  );
});

test('budget.json: round trip; missing starts empty; damaged starts empty with a reason', async (t) => {
  const dataDir = await certDataDir(t);
  t.deepEqual(await readBudgetLedger(new FileDocuments(dataDir)), { ledger: [] });
  const ledger = [Date.parse('2025-01-01T00:00:00Z'), Date.parse('2025-01-02T12:00:00Z')];
  await writeBudgetLedger(new FileDocuments(dataDir), ledger);
  t.deepEqual(await readBudgetLedger(new FileDocuments(dataDir)), { ledger });
  await writeFile(join(dataDir, 'budget.json'), '{"new_certificates": ["soon"]}');
  t.deepEqual(await readBudgetLedger(new FileDocuments(dataDir)), {
    ledger: [],
    problem: `${join(dataDir, 'budget.json')} is not usable (new_certificates holds something other than times); counting the CA budget from empty`,
  });
  await writeFile(join(dataDir, 'budget.json'), '[]');
  t.regex((await readBudgetLedger(new FileDocuments(dataDir))).problem ?? '', /new_certificates is not a list/);
});
