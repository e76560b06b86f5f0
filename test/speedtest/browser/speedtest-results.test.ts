// Saved results in Chromium against the real netspeed server started with a results file: a test run,
// its loss and grades shown, saved, listed in the history, opened by its link; the result's page with
// its picture, on a desktop and on a phone.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';
import { openPage, saveScreenshot, text } from '../../helpers/browser.js';
import { startNetspeedServer } from '../../helpers/netspeed.js';
import { desktop, phaseSeconds, phone, serverName, waitForPhase } from '../helpers/speedtest-page.js';

async function serverKeepingResults(t: ExecutionContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'netspeed-page-results-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const { url } = await startNetspeedServer(t, [
    '-H',
    '127.0.0.1',
    '-p',
    '0',
    '-q',
    '-d',
    String(phaseSeconds),
    '-n',
    serverName,
    '--results',
    join(dir, 'results'),
  ]);
  return url;
}

/** Runs a test on the page and saves it; resolves with the saved result's address. */
async function runAndSave(t: ExecutionContext, page: Page): Promise<string> {
  await waitForPhase(page, 'idle');
  t.false(await page.locator('#history').isHidden(), 'the history shows on a server that keeps results');
  t.is(await text(page, '#history-empty'), 'No result saved yet.');
  await page.locator('#start').click();
  await waitForPhase(page, 'done', 30_000);
  t.regex(await text(page, '#result-loss'), /^\d+\.\d %$/);
  t.regex(await text(page, '#result-loss-count'), /^\d+ of \d+$/);
  for (const use of ['streaming', 'gaming', 'calls']) t.regex(await text(page, `#grade-${use} strong`), /^(good|fair|poor)$/, use);
  await page.locator('#save-result').click();
  const link = page.locator('#saved-result-link');
  await link.waitFor();
  const href = (await link.getAttribute('href')) ?? '';
  t.regex(href, /\/r\/[A-Za-z0-9_-]{22}$/);
  await page.locator('#history-rows tr').first().waitFor();
  t.is(await page.locator('#history-rows tr').count(), 1);
  t.true(await page.locator('#history-empty').isHidden());
  t.is(await page.locator('#history-rows a').first().getAttribute('href'), href, 'the history links the saved result');
  t.is(await text(page, '#save-result'), 'Saved');
  return href;
}

async function checkResultPage(t: ExecutionContext, page: Page, href: string, download: string): Promise<void> {
  t.is(page.url(), href);
  t.is(await text(page, 'h1'), serverName, 'the server name as text');
  t.is(await text(page, '.result-download .result-value'), download, 'the saved download figure');
  t.is(await page.locator('.use-grade').count(), 3);
  const picture = page.locator('.saved-picture img');
  await picture.waitFor();
  await page.waitForFunction('document.querySelector(".saved-picture img").complete');
  t.is(await page.evaluate<number>('document.querySelector(".saved-picture img").naturalWidth'), 1200, 'the picture loads');
  t.is(await page.locator('.history-table tbody tr[aria-current="page"]').count(), 1, 'the result is marked in the history');
}

test.serial('desktop: a run saved, listed, opened by its link', async (t) => {
  const url = await serverKeepingResults(t);
  const { page, problems } = await openPage(t, url, desktop);
  const href = await runAndSave(t, page);
  const download = await text(page, '#result-download');
  t.log(await saveScreenshot(page, 'speedtest-results-desktop', { fullPage: true }));
  await page.locator('#saved-result-link').click();
  await page.waitForURL(href);
  await checkResultPage(t, page, href, download);
  t.log(await saveScreenshot(page, 'speedtest-result-page-desktop', { fullPage: true }));
  t.deepEqual(problems, [], 'no error and no policy violation');
});

test.serial('phone: the saved result and the history fit the screen', async (t) => {
  const url = await serverKeepingResults(t);
  const { page, problems } = await openPage(t, url, phone);
  const href = await runAndSave(t, page);
  const download = await text(page, '#result-download');
  t.true((await page.evaluate<number>('document.documentElement.scrollWidth')) <= 390, 'no sideways scrolling of the test page');
  t.log(await saveScreenshot(page, 'speedtest-results-phone', { fullPage: true }));
  await page.locator('#history-rows a').first().tap();
  await page.waitForURL(href);
  await checkResultPage(t, page, href, download);
  t.true((await page.evaluate<number>('document.documentElement.scrollWidth')) <= 390, 'no sideways scrolling of the result page');
  t.log(await saveScreenshot(page, 'speedtest-result-page-phone', { fullPage: true }));
  t.deepEqual(problems, []);
});
