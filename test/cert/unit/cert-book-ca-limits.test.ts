// The CA's order and duplicate-certificate limits as the book applies them (domains/ca-limits.ts), on a
// fake clock: a name renewed past its duplicate limit has its renewal put off until the oldest of its
// certificates leaves the window, with the limit named in the log; an add past the order limit waits
// in pending for its slot; ca-limits.json counts again after a restart.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import { loggerFrom } from '../../../src/log/record.js';
import { unlimitedBudget } from '../../../actors/cert/domains/budget.js';
import { CaLimits, caLimitsFileName, readCaLimits, withCaLimits, type CaLimitSettings } from '../../../actors/cert/domains/ca-limits.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { day, hour, startBook } from '../helpers/domain-book.js';
import { FileDocuments } from '../../../actors/cert/store/documents.js';

const start = Date.UTC(2026, 0, 1);
const quiet = loggerFrom('limits', () => {});

async function limitedGate(dataDir: string, clock: ManualClock, settings: CaLimitSettings) {
  return withCaLimits(unlimitedBudget, new CaLimits(settings, clock, await readCaLimits(new FileDocuments(dataDir), quiet)), new FileDocuments(dataDir), quiet);
}

test('renewals past the duplicate limit are put off until the oldest certificate leaves the window', async (t) => {
  const dataDir = await certDataDir(t);
  const clock = new ManualClock(start);
  const settings = { orders: 300, ordersWindowMs: 3 * hour, duplicates: 2, duplicatesWindowMs: 7 * day };
  // Certificates of 3 days, renewed after 2: a third certificate within 7 days would be one too many.
  const harness = await startBook(t, { dataDir, clock, lifetimeMs: 3 * day, budget: await limitedGate(dataDir, clock, settings) });
  await harness.book.add({ name: 'app', target: '203.0.113.5' });
  const first = await harness.until('app', (view) => view.status === 'issued');
  const renewed = harness.nextPublished('app', (view) => view.issued_at !== first.issued_at && view.status === 'issued');
  clock.advance(Date.parse(first.renewal.due_at ?? '') - clock.now());
  const second = await renewed;
  t.is(harness.issuer.orders.length, 2);

  const put = harness.nextPublished('app', (view) => view.renewal.due_at !== second.renewal.due_at);
  clock.advance(Date.parse(second.renewal.due_at ?? '') - clock.now());
  const deferred = await put;
  t.is(deferred.status, 'issued', 'the certificate served stays');
  t.is(Date.parse(deferred.renewal.due_at ?? ''), start + 7 * day, 'renewed once the first certificate leaves the 7-day window');
  t.is(harness.issuer.orders.length, 2, 'no third order inside the window');
  t.true(harness.logged.some((line) => /waits for a slot in the CA budget, at .*: 2 certificates for app\.example\.com in 168 hours/.test(line)));

  const counted = JSON.parse(await readFile(join(dataDir, caLimitsFileName), 'utf8')) as { orders: number[]; certificates: Record<string, number[]> };
  t.is(counted.certificates['app.example.com']?.length, 2, 'both certificates are counted in the file');
  t.is(counted.orders.length, 1, 'only the order inside its 3-hour window when the file was written');
});

test('an add past the order limit waits in pending for its slot; the count holds across a restart', async (t) => {
  const dataDir = await certDataDir(t);
  const clock = new ManualClock(start);
  const settings = { orders: 2, ordersWindowMs: 3 * hour, duplicates: 5, duplicatesWindowMs: 7 * day };
  const before = await startBook(t, { dataDir, clock, lifetimeMs: 90 * day, budget: await limitedGate(dataDir, clock, settings) });
  await before.book.add({ name: 'a', target: '203.0.113.5' });
  await before.book.add({ name: 'b', target: '203.0.113.5' });
  await before.until('a', (view) => view.status === 'issued');
  await before.until('b', (view) => view.status === 'issued');
  await before.book.stop();

  const after = await startBook(t, { dataDir, clock, lifetimeMs: 90 * day, budget: await limitedGate(dataDir, clock, settings) });
  await after.book.add({ name: 'c', target: '203.0.113.5' });
  const waiting = await after.until('c', (view) => view.waiting_for === 'budget');
  t.is(Date.parse(waiting.next_attempt_at ?? ''), start + 3 * hour, 'the slot frees 3 hours after the first order');
  t.true(after.logged.some((line) => /2 orders in 3 hours, the CA's limit of new orders per account/.test(line)));
  t.is(after.issuer.orders.length, 0);
  const issued = after.nextPublished('c', (view) => view.status === 'issued');
  clock.advance(3 * hour);
  await issued;
  t.is(after.issuer.orders.length, 1);
});
