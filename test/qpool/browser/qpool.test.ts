// The qpool page in Chromium against the real `qpool serve` fed through the diode double: the live
// figures follow values arriving and being taken without a reload, the empty and running-low
// states, curl lines aimed at the page's own origin, the notice when the server goes away, and the
// demo banner of a server that accepts demo values. The page asks nothing of any other origin.
import { randomBytes } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { assertAccessible } from '../../helpers/accessibility.js';
import { newPage, saveScreenshot, text, type BrowserPage } from '../../helpers/browser.js';
import { DiodeDouble } from '../../helpers/diode-double.js';
import { freeListen, startServe, tempDir, valueLines, waitForStatus, writeConfig, type RunningServe } from '../../helpers/qpool.js';

const desktop: BrowserContextOptions = { viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce', permissions: ['clipboard-read', 'clipboard-write'] };
const phone: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, reducedMotion: 'reduce' };
/** Polls are 2 s apart; a figure is due within one poll, plus room for a loaded machine. */
const pollWait = { timeout: 8000 };
const capacity = 50;

interface Served {
  serve: RunningServe;
  double: DiodeDouble;
  origin: string;
}

/** `qpool serve` with its own diode double and no pool file; `server` adds to the config's section. */
async function serveWithDouble(t: ExecutionContext, server: Record<string, unknown> = {}): Promise<Served> {
  const dir = await tempDir(t);
  const double = await DiodeDouble.create(t);
  t.teardown(() => double.cleanup());
  const config = await writeConfig(dir, { server: { listen: await freeListen(), receive_command: double.receiveCommand('auto-stream-recv'), ...server } });
  const serve = await startServe(t, config, double.env);
  return { serve, double, origin: new URL(serve.url).origin };
}

function freshValues(count: number): string[] {
  return Array.from({ length: count }, () => randomBytes(128).toString('hex'));
}

/** A page that records every request's URL as well as the problems newPage records. */
async function watchedPage(t: ExecutionContext, options: BrowserContextOptions): Promise<BrowserPage & { requests: string[] }> {
  const opened = await newPage(t, options);
  const requests: string[] = [];
  opened.page.on('request', (request) => requests.push(request.url()));
  return { ...opened, requests };
}

async function waitUntilLive(page: Page): Promise<void> {
  await page.locator('body[data-connection="live"]').waitFor(pollWait);
}

/** Takes `count` values from the server as a client would (not through the page). */
async function takeValues(url: string, count: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    const response = await fetch(`${url}api/random/hex`);
    if (response.status !== 200) throw new Error(`value ${index + 1} of ${count}: HTTP ${response.status}`);
    await response.text();
  }
}

function otherOrigins(requests: readonly string[], origin: string): string[] {
  return requests.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin);
}

async function checkEmpty(t: ExecutionContext, page: Page, served: number): Promise<void> {
  await page.locator('#available[data-value="0"]').waitFor(pollWait);
  t.is(await text(page, '#available'), '0');
  t.is(await page.locator('#served-total').getAttribute('data-value'), String(served));
  t.is(await text(page, '#fill-percent'), 'empty');
  t.true(await page.locator('#pool-empty').isVisible());
  t.is(await page.locator('#pool-meter').getAttribute('data-level'), 'empty');
  t.is(await page.locator('#pool-meter').getAttribute('aria-valuenow'), '0');
  t.is(await text(page, '#newest'), '—');
  t.is(await text(page, '#oldest'), '—');
}

test.serial('the page follows values arriving and being taken, and says when the server goes away', async (t) => {
  const { serve, double, origin } = await serveWithDouble(t, { max_entries: capacity });
  const { version } = (await (await fetch(`${serve.url}api/version`)).json()) as { version: string };
  const { page, problems, requests } = await watchedPage(t, desktop);
  await page.goto(serve.url);
  await waitUntilLive(page);

  // Before anything arrives: the empty state, figures from the server, version in the header.
  await page.locator('#version', { hasNotText: '…' }).waitFor(pollWait);
  t.is(await text(page, '#version'), version);
  t.is(await page.title(), `qpool ${version}`);
  t.is(await text(page, '#connection-label'), 'live');
  t.regex(await text(page, '#updated'), /^updated \d\d:\d\d:\d\d$/);
  t.is(await page.locator('#capacity').getAttribute('data-value'), String(capacity));
  t.is(await text(page, '#last-ingest'), 'never');
  await checkEmpty(t, page, 0);
  t.false(await page.locator('#demo-banner').isVisible());
  t.false(await page.locator('#status-error').isVisible());

  // Values arrive over the diode: the figures follow on the next poll, no reload. A reload would
  // lose this mark.
  await page.evaluate('window.sameDocument = true');
  const arrived = 25;
  double.enqueue(valueLines(freshValues(arrived)));
  await waitForStatus(serve.url, (status) => status.available === arrived);
  const ingestedAt = Date.now();
  await page.locator(`#available[data-value="${arrived}"]`).waitFor(pollWait);
  t.true(await page.evaluate<boolean>('window.sameDocument === true'), 'the page was not reloaded');
  t.is(await text(page, '#available'), String(arrived));
  t.is(await text(page, '#capacity'), String(capacity));
  t.is(await text(page, '#fill-percent'), '50% full');
  t.is(await page.locator('#pool-meter').getAttribute('aria-valuenow'), '50');
  t.is(await page.locator('#pool-meter').getAttribute('data-level'), 'ok');
  t.false(await page.locator('#pool-empty').isVisible());
  for (const id of ['#newest', '#oldest', '#last-ingest']) {
    t.regex(await text(page, id), /^(just now|\d+ s ago)$/, id);
    t.regex((await page.locator(id).getAttribute('datetime')) ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, id);
    t.regex((await page.locator(id).getAttribute('title')) ?? '', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/, id);
  }
  t.is(await text(page, '#served-total'), '0');
  t.deepEqual(problems, []);
  t.log(await saveScreenshot(page, 'qpool-desktop-full', { fullPage: true }));
  await assertAccessible(t, page, 'the status page on a desktop');

  const onPhone = await watchedPage(t, phone);
  await onPhone.page.goto(serve.url);
  await waitUntilLive(onPhone.page);
  await onPhone.page.locator(`#available[data-value="${arrived}"]`).waitFor(pollWait);
  t.true((await onPhone.page.evaluate<number>('document.documentElement.scrollWidth')) <= 390, 'no sideways scrolling on a phone');
  t.deepEqual(onPhone.problems, []);
  t.deepEqual(otherOrigins(onPhone.requests, origin), []);
  t.log(await saveScreenshot(onPhone.page, 'qpool-phone'));
  t.log(await saveScreenshot(onPhone.page, 'qpool-phone-full', { fullPage: true }));
  await assertAccessible(t, onPhone.page, 'the status page on a phone');
  await onPhone.page.close();

  // The curl lines use the page's own origin.
  t.is(await text(page, '#base-url'), origin);
  const entries = await page.locator('#endpoints li.endpoint').all();
  t.is(entries.length, 9);
  for (const entry of entries) {
    const path = (await entry.getAttribute('data-path')) ?? '';
    const curl = ((await entry.locator('code.curl').textContent()) ?? '').trim();
    t.regex(curl, /^curl -s[fI]? /, path);
    t.is(curl.split(' ')[2], `${origin}${path}`, curl);
    t.true(await entry.locator('button.copy').isVisible(), path);
  }
  // Copy puts exactly the line shown on the clipboard (loopback is a secure context).
  const statusEntry = page.locator('#endpoints li.endpoint[data-path="/api/status"]');
  await statusEntry.locator('button.copy').click();
  await statusEntry.locator('button.copy[data-outcome="copied"]').waitFor();
  t.is(await page.evaluate<string>('navigator.clipboard.readText()'), `curl -s ${origin}/api/status`);

  // Values taken by a client (not the page) show as served, and the pool runs low, then dry.
  await takeValues(serve.url, 5);
  await page.locator('#served-total[data-value="5"]').waitFor(pollWait);
  t.is(await text(page, '#served-total'), '5');
  t.is(await page.locator('#available').getAttribute('data-value'), '20');
  t.is(await text(page, '#fill-percent'), '40% full');
  await takeValues(serve.url, 16);
  await page.locator('#available[data-value="4"]').waitFor(pollWait);
  t.is(await text(page, '#fill-percent'), '8.0% full');
  t.is(await page.locator('#pool-meter').getAttribute('data-level'), 'low');
  t.false(await page.locator('#pool-empty').isVisible());
  await takeValues(serve.url, 4);
  await checkEmpty(t, page, arrived);
  // Relative to when the values came in: in seconds within the first minute, then in minutes (a loaded
  // machine can take over a minute to get here).
  const lastIngest = await text(page, '#last-ingest');
  t.regex(lastIngest, Date.now() - ingestedAt < 50_000 ? /^(just now|\d+ s ago)$/ : /^(\d+ s ago|\d+ min ago)$/, lastIngest);
  t.deepEqual(problems, []);
  t.deepEqual(otherOrigins(requests, origin), []);

  // The server stops: the notice says so and the figures are marked stale.
  serve.process.child.kill('SIGTERM');
  await serve.process.exited;
  await page.locator('#status-error').waitFor({ state: 'visible', ...pollWait });
  t.is(await page.locator('body').getAttribute('data-connection'), 'unreachable');
  t.is(await text(page, '#connection-label'), 'not reachable');
  t.regex(await text(page, '#status-error-detail'), /^No connection to the server\. Trying again every 2 s\. The figures below are from \d\d:\d\d:\d\d\.$/);
  t.is(await page.evaluate<string>(`getComputedStyle(document.querySelector('.panel-pool')).opacity`), '0.55', 'stale figures are dimmed');
  t.is(await page.locator('#available').getAttribute('data-value'), '0', 'the last figures stay on screen');
  t.deepEqual(otherOrigins(requests, origin), []);
  t.log(await saveScreenshot(page, 'qpool-desktop-unreachable'));
  await assertAccessible(t, page, 'the status page, the pool unreachable');
  // Chromium logs each refused fetch as a console error; nothing else may appear.
  t.deepEqual(
    problems.filter((problem) => !/^console: Failed to load resource: net::ERR_CONNECTION_REFUSED$/.test(problem)),
    [],
  );
});

test.serial('a server that accepts demo values shows the demo banner', async (t) => {
  const { serve, origin } = await serveWithDouble(t, { accept_demo: true, loopback: false });
  t.is((await fetch(`${serve.url}api/status`)).headers.get('X-Quantum-Demo'), '1');
  const { page, problems, requests } = await watchedPage(t, desktop);
  await page.goto(serve.url);
  await waitUntilLive(page);
  await page.locator('#demo-banner').waitFor({ state: 'visible', ...pollWait });
  t.is(await text(page, '#demo-banner .banner-title'), 'Demo values — not quantum random');
  t.false(await page.locator('#status-error').isVisible());
  t.deepEqual(problems, []);
  t.deepEqual(otherOrigins(requests, origin), []);
  t.log(await saveScreenshot(page, 'qpool-desktop-demo'));
  await assertAccessible(t, page, 'the status page of a demo');
});
