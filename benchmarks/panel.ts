// `npm run bench -- panel`: the certhub admin panel with 10,000 domains, in Chromium (Debian's, through
// playwright-core), against a demo `certhub run`. Figures are Chromium's own performance timeline:
// the page marks its first render and measures each sort, filter keystroke and pushed domain event
// (performance.measure in actors/cert/ui/domains.ts); the Event Timing API adds how long a click or a
// keystroke took to reach the screen when that was 16 ms or more (shorter ones are not reported).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium, type Page } from 'playwright-core';
import { chromiumArgs, chromiumPath } from './third-party/chromium.js';
import { median, printTable } from './harness.js';
import { figure, ratio, summaryRow } from './summary-table.js';
import { addDomain, listDomains, startCerthub, writeCerthubConfig, type CerthubServer } from './certhub-server.js';

const domainCount = 10_000;
/** Adds in flight at once while filling the server. */
const addConcurrency = 16;
const targets = { firstRenderMs: 500, sortMs: 50, filterMs: 50, domainEventMs: 16 };

export async function panelBenchmark(options: { rounds: number }): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-panel-'));
  await writeCerthubConfig(dataDir, 'example.test');
  const server = await startCerthub(dataDir, ['--demo']);
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  try {
    const fillMs = await fill(server);
    console.log(
      `added ${domainCount.toLocaleString('en-US')} domains through the admin API in ${(fillMs / 1000).toFixed(1)} s (${addConcurrency} at a time, ${Math.round(domainCount / (fillMs / 1000))} per second)`,
    );
    const settleMs = await allIssued(server);
    console.log(`every domain issued ${(settleMs / 1000).toFixed(1)} s after the last add: the page loads are measured against a server at rest`);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(server.url);
    const { admin_key: adminKey } = JSON.parse(await readFile(join(dataDir, 'config.json'), 'utf8')) as { admin_key: string };
    await page.getByLabel('Admin key').fill(adminKey);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.locator('#list-count', { hasText: `${domainCount.toLocaleString('en-US').replace(',', '')} domains` }).waitFor({ timeout: 60_000 });

    const firstRender: number[] = [];
    const snapshotArrived: number[] = [];
    const snapshot: number[] = [];
    for (let round = 0; round < Math.max(1, options.rounds); round++) {
      await page.reload();
      // A function, not a string: the page's content security policy forbids eval.
      await page.waitForFunction(() => performance.getEntriesByName('panel:first-render').length > 0, undefined, { timeout: 60_000 });
      firstRender.push(await page.evaluate<number>(`performance.getEntriesByName('panel:first-render')[0].startTime`));
      snapshot.push(await page.evaluate<number>(`performance.getEntriesByName('panel:snapshot')[0].duration`));
      snapshotArrived.push(await page.evaluate<number>(`performance.getEntriesByName('panel:snapshot')[0].startTime`));
    }
    await page.evaluate(
      `window.slowEvents = []; new PerformanceObserver((list) => window.slowEvents.push(...list.getEntries().filter((entry) => entry.name === 'click' || entry.name === 'keydown').map((entry) => [entry.name, entry.duration]))).observe({ type: 'event', durationThreshold: 16 })`,
    );

    for (let click = 0; click < 10; click++) await page.locator(click % 4 < 2 ? '#sort-expires' : '#sort-name').click();
    const filter = page.getByLabel('Filter domains');
    await filter.click();
    for (let round = 0; round < 5; round++) {
      await filter.pressSequentially('d012', { delay: 30 });
      await filter.press('Escape');
    }
    const changed = await changeTargets(server, page, 20);
    const sorts = await measures(page, 'panel:sort');
    const filters = await measures(page, 'panel:filter');
    const events = await measures(page, 'panel:domain-event');
    const slow = await page.evaluate<Array<[string, number]>>('window.slowEvents');

    const row = (name: string, values: number[], target: number): (string | number)[] => {
      const worst = Math.max(...values);
      return [name, values.length, median(values), worst, target, `${(worst / target).toFixed(2)}`];
    };
    printTable(
      `certhub panel, ${domainCount.toLocaleString('en-US')} domains, Chromium (ms; ratio = worst / target)`,
      ['measure', 'samples', 'median', 'worst', 'target', 'ratio'],
      [
        row('first render (navigation start -> rows drawn)', firstRender, targets.firstRenderMs),
        row('  of which: until the snapshot arrived', snapshotArrived, targets.firstRenderMs),
        row('  of which: the snapshot parsed, sorted, drawn', snapshot, targets.firstRenderMs),
        row('sort click (Name / Expires)', sorts, targets.sortMs),
        row('filter keystroke (incl. Esc)', filters, targets.filterMs),
        row(`live domain event (${changed} target changes)`, events, targets.domainEventMs),
      ],
    );
    for (const [name, values, target] of [
      [
        `first render of ${domainCount.toLocaleString('en-US')} domains (navigation start to rows drawn, ${firstRender.length} page loads)`,
        firstRender,
        targets.firstRenderMs,
      ],
      ['a sort click (Name / Expires)', sorts, targets.sortMs],
      ['a filter keystroke', filters, targets.filterMs],
      ['a live domain event drawn', events, targets.domainEventMs],
    ] as const) {
      summaryRow({
        benchmark: `panel: ${name}, in Chromium`,
        ours: `median ${figure(median([...values]))} ms, worst ${figure(Math.max(...values))} ms`,
        anchor: 'its target (no other panel is measured)',
        anchorFigure: `${target} ms`,
        ratio: `${ratio(Math.max(...values), target)} (worst)`,
      });
    }
    for (const kind of ['click', 'keydown']) {
      const durations = slow.filter(([name]) => name === kind).map(([, duration]) => duration);
      console.log(
        `Event Timing, ${kind} to next paint: ${durations.length} took 16 ms or more${durations.length === 0 ? '' : ` (median ${median(durations)} ms, worst ${Math.max(...durations)} ms)`}`,
      );
    }
  } finally {
    await browser.close();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Adds the domains `addConcurrency` at a time; milliseconds taken. */
async function fill(server: CerthubServer): Promise<number> {
  const startedAt = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < domainCount) {
      const index = next++;
      await addDomain(server, `d${String(index).padStart(5, '0')}`, `10.${index >> 16}.${(index >> 8) & 255}.${index & 255}`);
    }
  };
  await Promise.all(Array.from({ length: addConcurrency }, worker));
  return performance.now() - startedAt;
}

/**
 * Waits until the demo has issued every domain added; milliseconds waited. Until then the server
 * makes a key and a certificate a domain, and a page load measured meanwhile competes with that for
 * the two cores instead of measuring the panel.
 */
async function allIssued(server: CerthubServer): Promise<number> {
  const startedAt = performance.now();
  const deadline = startedAt + 300_000;
  while ((await listDomains(server)).some((domain) => domain.status !== 'issued')) {
    if (performance.now() > deadline) throw new Error('the demo did not issue every domain within 5 minutes');
    await sleep(500);
  }
  return performance.now() - startedAt;
}

/** Changes the target of `count` domains on screen (each sends events as it is issued again); how many changed. */
async function changeTargets(server: CerthubServer, page: Page, count: number): Promise<number> {
  const before = (await measures(page, 'panel:domain-event')).length;
  for (let index = 0; index < count; index++) {
    const response = await server.admin(`api/admin/domains/d${String(index).padStart(5, '0')}`, { method: 'PATCH', body: { target: `192.0.2.${index + 1}` } });
    if (!response.ok) throw new Error(`changing a target: HTTP ${response.status}`);
  }
  await page.waitForFunction((expected) => performance.getEntriesByName('panel:domain-event').length >= expected, before + count, { timeout: 30_000 });
  return count;
}

async function measures(page: Page, name: string): Promise<number[]> {
  return page.evaluate<number[]>(`performance.getEntriesByName(${JSON.stringify(name)}).map((entry) => entry.duration)`);
}
