// Headless Chromium for the browser tests, launched as benchmarks/third-party/chromium.ts says. Each
// page gets its own browser, closed at teardown whatever the test's outcome, and
// records what a clean page never produces (uncaught exceptions, console errors, anything its
// Content-Security-Policy blocked).
import { mkdir } from 'node:fs/promises';
import type { ExecutionContext } from 'ava';
import { chromium, type BrowserContextOptions, type Page } from 'playwright-core';
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

/** A blank page in a fresh browser (Playwright gives it a throwaway profile); set up routes, then navigate. */
export async function newPage(t: ExecutionContext, options: BrowserContextOptions = {}): Promise<BrowserPage> {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  t.teardown(() => browser.close());
  const page = await browser.newPage(options);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  await page.exposeFunction('reportPolicyViolation', (violation: string) => problems.push(`csp: ${violation}`));
  await page.addInitScript(reportPolicyViolations);
  return { page, problems };
}

/** A fresh browser's page, navigated to `url`. */
export async function openPage(t: ExecutionContext, url: string, options: BrowserContextOptions = {}): Promise<BrowserPage> {
  const opened = await newPage(t, options);
  await opened.page.goto(url);
  return opened;
}

/** Saves a PNG under test-results/ (gitignored) for a person to look at; returns its path. */
export async function saveScreenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  const dir = projectPath('test-results/');
  await mkdir(dir, { recursive: true });
  const path = `${dir}${name}.png`;
  await page.screenshot({ path, fullPage: options.fullPage ?? false });
  return path;
}
