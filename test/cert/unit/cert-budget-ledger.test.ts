// The CA budget's file and gate: budget.json read back as written, a missing file as an empty
// budget, a damaged or unreadable one logged and counted from empty; the gate's slots given back on
// release; a write that fails logged while the certificate stays counted; the gauges registered.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { Registry } from 'prom-client';
import { ManualClock } from '../../../src/actor/clock.js';
import { loggerFrom } from '../../../src/log/record.js';
import {
  budgetFileName,
  CertificateBudget,
  ledgerBudget,
  openLedgerBudget,
  readBudgetLedger,
  registerBudgetMetrics,
  unlimitedBudget,
  writeBudgetLedger,
} from '../../../actors/cert/domains/budget.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { FileDocuments } from '../../../actors/cert/store/documents.js';

const hour = 3_600_000;
const settings = { certificates: 2, windowMs: 3 * hour };
const start = Date.UTC(2027, 0, 1);

function recordingLog(): { log: ReturnType<typeof loggerFrom>; lines: string[] } {
  const lines: string[] = [];
  return { log: loggerFrom('budget', (record) => lines.push(`${record.level}: ${record.message}`)), lines };
}

test('budget.json reads back as written; a missing one is an empty budget with no problem', async (t) => {
  const dir = await certDataDir(t);
  t.deepEqual(await readBudgetLedger(new FileDocuments(dir)), { ledger: [] });
  await writeBudgetLedger(new FileDocuments(dir), [start, start + hour]);
  t.deepEqual(await readBudgetLedger(new FileDocuments(dir)), { ledger: [start, start + hour] });
  t.deepEqual(JSON.parse(await readFile(join(dir, budgetFileName), 'utf8')), {
    new_certificates: [new Date(start).toISOString(), new Date(start + hour).toISOString()],
  });
});

test('a damaged budget.json counts from empty and says why, naming the file', async (t) => {
  const dir = await certDataDir(t);
  const path = join(dir, budgetFileName);
  for (const [text, why] of [
    ['{"new_certificates": "x"}', 'new_certificates is not a list'],
    ['{"new_certificates": [1700000000000]}', 'new_certificates holds something other than times'],
    // A number that Date.parse would read as a year, were it taken as text.
    ['{"new_certificates": [2026]}', 'new_certificates holds something other than times'],
    [`{"new_certificates": ["${new Date(start).toISOString()}", "soon"]}`, 'new_certificates holds something other than times'],
    ['not json', 'is not usable'],
  ] as const) {
    await writeFile(path, text);
    const read = await readBudgetLedger(new FileDocuments(dir));
    t.deepEqual(read.ledger, [], text);
    t.true(read.problem?.startsWith(`${path} is not usable (`) === true, text);
    t.true(read.problem?.includes(why) === true, `${text}: ${read.problem}`);
    t.true(read.problem?.endsWith('counting the CA budget from empty') === true);
  }
});

test('a budget.json that cannot be read counts from empty and names the error code', async (t) => {
  const dir = await certDataDir(t);
  await mkdir(join(dir, budgetFileName));
  t.deepEqual(await readBudgetLedger(new FileDocuments(dir)), {
    ledger: [],
    problem: `${join(dir, budgetFileName)} cannot be read (EISDIR); counting the CA budget from empty`,
  });
});

test('openLedgerBudget counts what budget.json holds, warns about a damaged one, and registers the gauges', async (t) => {
  const clock = new ManualClock(start);
  const dir = await certDataDir(t);
  await writeBudgetLedger(new FileDocuments(dir), [start - hour, start - 2 * hour]);
  const { log, lines } = recordingLog();
  const registry = new Registry();
  const gate = await openLedgerBudget(settings, new FileDocuments(dir), clock, log, registry);
  t.deepEqual(lines, []);
  const refused = gate.reserve('app', 'new', 0);
  t.false(refused.granted, 'both slots are taken by the certificates in the file');
  t.is(refused.granted ? undefined : refused.slotAt, start - 2 * hour + settings.windowMs, 'the oldest leaves the window first');
  t.deepEqual(gate.reserve('app', 'renewal', 0), { granted: true }, 'a renewal needs no slot');
  const metrics = await registry.metrics();
  t.regex(metrics, /^outpost_cert_budget_certificates 2$/m);
  t.regex(metrics, /^outpost_cert_budget_used 2$/m);
  t.regex(metrics, new RegExp(`^outpost_cert_budget_next_slot_timestamp_seconds ${(start - 2 * hour + settings.windowMs) / 1000}$`, 'm'));

  await writeFile(join(dir, budgetFileName), 'not json');
  const damaged = recordingLog();
  const fresh = await openLedgerBudget(settings, new FileDocuments(dir), clock, damaged.log);
  t.is(damaged.lines.length, 1);
  t.regex(damaged.lines[0] ?? '', /^warn: .*budget\.json is not usable .*counting the CA budget from empty$/);
  t.deepEqual(fresh.reserve('app', 'new', 0), { granted: true }, 'a damaged file counts from empty');
});

test('the next-slot gauge reads now while a slot is free, and the oldest certificate leaving the window once none is', async (t) => {
  const clock = new ManualClock(start);
  const registry = new Registry();
  const budget = new CertificateBudget(settings, clock, [start - hour]);
  registerBudgetMetrics(registry, budget, settings.certificates);
  const nextSlot = async () => /^outpost_cert_budget_next_slot_timestamp_seconds (\S+)$/m.exec(await registry.metrics())?.[1];
  t.is(await nextSlot(), String(start / 1000));
  t.is(budget.slotAt(0), start);
  t.is(budget.slotAt(1), start - hour + settings.windowMs, 'the waiter behind the free slot waits for the certificate to leave');
  t.deepEqual(budget.reserve('a', 'new'), { granted: true });
  t.is(await nextSlot(), String((start - hour + settings.windowMs) / 1000));
});

test('the gate gives a slot back on release, writes each commit, and keeps the certificate counted when the write fails', async (t) => {
  const clock = new ManualClock(start);
  const dir = await certDataDir(t);
  const { log, lines } = recordingLog();
  const budget = new CertificateBudget(settings, clock);
  const gate = ledgerBudget(budget, new FileDocuments(dir), log);
  t.deepEqual(gate.reserve('a', 'new', 0), { granted: true });
  t.deepEqual(gate.reserve('b', 'new', 0), { granted: true });
  t.false(gate.reserve('c', 'new', 0).granted);
  gate.release('b');
  t.is(budget.used, 1, 'the released slot is free again');
  t.deepEqual(gate.reserve('c', 'new', 0), { granted: true });

  await gate.commit('a');
  t.deepEqual((await readBudgetLedger(new FileDocuments(dir))).ledger, [start]);
  t.deepEqual(lines, []);

  // A folder where the file goes: the write's rename fails, as a full or read-only disk would make it.
  await rm(join(dir, budgetFileName));
  await mkdir(join(dir, budgetFileName));
  await t.notThrowsAsync(gate.commit('c'));
  t.is(lines.length, 1);
  t.regex(lines[0] ?? '', /^error: budget\.json could not be written; the CA budget may undercount after a restart: /);
  t.is(budget.used, 2, 'the certificate is counted whatever the write did');
});

test('the demo budget grants everything and counts nothing', async (t) => {
  t.deepEqual(unlimitedBudget.reserve('a', 'new', 0), { granted: true });
  await t.notThrowsAsync(unlimitedBudget.commit('a'));
  t.notThrows(() => unlimitedBudget.release('a'));
});
