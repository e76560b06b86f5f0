// Headless Chromium for the browser tests, launched as benchmarks/third-party/chromium.ts says. In
// `npm test`'s side-by-side pass, the files share one browser that test/run.sh started
// (test/helpers/browser-server.ts; OUTPOST_TEST_BROWSER is its address); otherwise one browser per test
// file (ava runs each file in its own process), started by the first page. Either way it is closed (or
// left) after the file's last test, and each page gets its own browser context (its own cookies,
// storage and cache: what a fresh browser would give it), closed at teardown whatever the test's
// outcome. Each page records what a clean page never produces (uncaught exceptions, console errors,
// anything its Content-Security-Policy blocked).
import { mkdir } from 'node:fs/promises';
import { text as streamText } from 'node:stream/consumers';
import test, { type ExecutionContext } from 'ava';
import { chromium, type Browser, type BrowserContextOptions, type Download, type Page } from 'playwright-core';
import { chromiumArgs, chromiumPath } from '../../benchmarks/third-party/chromium.js';
import { projectPath } from './process.js';

export interface BrowserPage {
  page: Page;
  /** Uncaught exceptions, console errors and content security policy violations seen so far, in order. */
  problems: string[];
}

/**
 * Reports every `securitypolicyviolation` of every document the page loads. Init scripts run through
 * the DevTools protocol, so the page's own policy does not block this one.
 */
const reportPolicyViolations = `document.addEventListener('securitypolicyviolation', (event) => {
  window.reportPolicyViolation(event.violatedDirective + ' blocked ' + event.blockedURI + ' at ' + event.sourceFile + ':' + event.lineNumber);
})`;

/**
 * The file's browser, launched (or connected to) once: a launch costs about a second of CPU, which a
 * browser per test paid dozens of times on a suite that shares two cores. A launch that fails is not
 * kept, so the next page tries again and fails with its own error.
 */
let sharedBrowser: Promise<Browser> | undefined;
const runBrowser = process.env.OUTPOST_TEST_BROWSER;

function fileBrowser(): Promise<Browser> {
  sharedBrowser ??= (runBrowser === undefined ? chromium.launch({ executablePath: chromiumPath, args: chromiumArgs }) : chromium.connect(runBrowser)).catch(
    (error: unknown) => {
      sharedBrowser = undefined;
      throw error;
    },
  );
  return sharedBrowser;
}

// Closing a browser this file connected to closes its contexts and leaves the browser to the run.
test.after.always("the file's browser is closed", async () => {
  const browser = await sharedBrowser?.catch(() => undefined);
  await browser?.close();
});

/** A blank page in a fresh browser context (Playwright gives it a throwaway profile); set up routes, then navigate. */
export async function newPage(t: ExecutionContext, options: BrowserContextOptions = {}): Promise<BrowserPage> {
  const context = await (await fileBrowser()).newContext(options);
  t.teardown(() => context.close());
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  await page.exposeFunction('reportPolicyViolation', (violation: string) => problems.push(`csp: ${violation}`));
  await page.addInitScript(reportPolicyViolations);
  return { page, problems };
}

/** A fresh browser context's page, navigated to `url`. */
export async function openPage(t: ExecutionContext, url: string, options: BrowserContextOptions = {}): Promise<BrowserPage> {
  const opened = await newPage(t, options);
  await opened.page.goto(url);
  return opened;
}

/** The text `selector` shows, trimmed ('' for none). */
export async function text(page: Page, selector: string): Promise<string> {
  return ((await page.locator(selector).textContent()) ?? '').trim();
}

/**
 * What a download holds, as text, read through Playwright's stream: a browser this file connected to
 * (the run's, see above) keeps its downloads on its side, where `download.path()` cannot name them.
 */
export async function downloadedText(download: Download): Promise<string> {
  return streamText(await download.createReadStream());
}

/** How many animations on the page never end: each keeps the page drawing while nothing changes. */
export function endlessAnimations(page: Page): Promise<number> {
  return page.evaluate<number>('document.getAnimations().filter((animation) => animation.effect.getComputedTiming().iterations === Infinity).length');
}

/** The animation name and iteration count the stylesheet gives `selector`'s `::after`, read without waiting for a frame. */
export function afterAnimation(page: Page, selector: string): Promise<[string, string]> {
  return page.evaluate<[string, string]>(
    `(() => { const after = getComputedStyle(document.querySelector(${JSON.stringify(selector)}), '::after'); return [after.animationName, after.animationIterationCount]; })()`,
  );
}

/** Saves a PNG under test-results/ (gitignored) for a person to look at; returns its path. */
export async function saveScreenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  const dir = projectPath('test-results/');
  await mkdir(dir, { recursive: true });
  const path = `${dir}${name}.png`;
  await page.screenshot({ path, fullPage: options.fullPage ?? false });
  return path;
}
