// The certhub admin panel in Chromium against a real `certhub run --demo`: a server with a data
// directory of its own, a page logged in through the login dialog, and the small reads every panel
// test makes (a row by name, the rows in screen order), and hosts' reports as agents send them.
import { createHash, X509Certificate } from 'node:crypto';
import type { ExecutionContext } from 'ava';
import type { BrowserContextOptions, Locator, Page } from 'playwright-core';
import { newPage, type BrowserPage } from '../../helpers/browser.js';
import { certhubDataDir, startCerthub, testAdminKey, type RunningCerthub } from '../../helpers/certhub.js';
import type { DomainView } from '../../../actors/cert/domains/protocol.js';
import type { HostReport } from '../../../actors/cert/hosts/report.js';

export const desktop: BrowserContextOptions = {
  viewport: { width: 1280, height: 900 },
  reducedMotion: 'reduce',
  permissions: ['clipboard-read', 'clipboard-write'],
};
export const phone: BrowserContextOptions = { viewport: { width: 360, height: 760 }, isMobile: true, hasTouch: true, reducedMotion: 'reduce' };

export type { DomainView };

export async function demoCerthub(t: ExecutionContext): Promise<RunningCerthub> {
  return startCerthub(t, await certhubDataDir(t));
}

/** Adds domains through the admin API (as a script would) and returns their views. */
export async function addDomains(server: RunningCerthub, domains: ReadonlyArray<{ name: string; target: string }>): Promise<DomainView[]> {
  const added: DomainView[] = [];
  for (const domain of domains) {
    const response = await server.admin('api/admin/domains', { method: 'POST', body: domain });
    if (response.status !== 201) throw new Error(`adding ${domain.name}: HTTP ${response.status} ${await response.text()}`);
    added.push((await response.json()) as DomainView);
  }
  return added;
}

export async function domainView(server: RunningCerthub, name: string): Promise<DomainView> {
  return (await (await server.admin(`api/admin/domains/${name}`)).json()) as DomainView;
}

/** Types the admin key into the login dialog and waits for the domain list. */
export async function logIn(page: Page, key = testAdminKey): Promise<void> {
  await page.getByLabel('Admin key').fill(key);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.locator('body[data-session="in"]').waitFor();
  // The session is in before the event stream's snapshot has drawn the list.
  await page.locator('#list-count:not(:empty)').waitFor();
}

/** A fresh browser at the panel, logged in, its list drawn from the server's snapshot. */
export async function openPanel(t: ExecutionContext, server: RunningCerthub, options: BrowserContextOptions = desktop): Promise<BrowserPage> {
  const opened = await newPage(t, options);
  await opened.page.goto(server.url);
  await logIn(opened.page);
  return opened;
}

export function row(page: Page, name: string): Locator {
  return page.locator(`.row[data-name="${name}"]`);
}

/** Expands a row (a click on its name) and waits until its details have been read from the server. */
export async function expandRow(page: Page, name: string): Promise<Locator> {
  const line = row(page, name);
  await line.getByRole('button', { name, exact: true }).click();
  const details = line.locator('.details[aria-busy="false"]');
  await details.waitFor();
  return details;
}

/** Opens the Export dialog for the ticked rows and waits until it has read their tokens. */
export async function openExportDialog(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Export…' }).click();
  await page.locator('#export[aria-busy="false"]').waitFor();
}

/** The names of the drawn rows, top to bottom. */
export async function shownNames(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`[...document.querySelectorAll('.row')].map((node) => node.dataset.name)`);
}

/**
 * What a page that did its job still leaves in the console: Chromium logs every answer in the 4xx
 * range as an error, and these tests provoke some on purpose (`statuses`).
 */
export function unexpected(problems: readonly string[], statuses: number[] = []): string[] {
  return problems.filter((problem) => !statuses.some((status) => problem.includes(`the server responded with a status of ${status} `)));
}

/** SHA-256 of the DER of the certificate certhub serves `label` now, as agents report it. */
export async function servedSha256(server: RunningCerthub, label: string): Promise<string> {
  const pem = await (await server.admin(`api/admin/domains/${label}/cert.crt`)).text();
  return createHash('sha256').update(new X509Certificate(pem).raw).digest('hex');
}

/** A host's report as certhub-agent sends it, with the domain's token; fails unless certhub takes it. */
export async function reportHost(server: RunningCerthub, domain: { name: string; token: string }, report: HostReport): Promise<void> {
  const answer = await fetch(`${server.url}api/cert/${domain.name}/report`, {
    method: 'POST',
    headers: { authorization: `Bearer ${domain.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(report),
  });
  if (answer.status !== 200) throw new Error(`report of ${report.host_name} on ${domain.name}: HTTP ${answer.status} ${await answer.text()}`);
}
