// The certhub panel as people see it, against `certhub run --demo`: screenshots of both tabs, an
// expanded row and the export dialog on a desktop and a 360 px phone, light and dark, saved to
// test-results/ for a person to look at; nothing wider than the phone; and a round done with the
// keyboard alone (log in, add, expand, tick, export).
import test from 'ava';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { assertAccessible } from '../../helpers/accessibility.js';
import { newPage, saveScreenshot } from '../../helpers/browser.js';
import { testAdminKey } from '../../helpers/certhub.js';
import { addDomains, demoCerthub, desktop, expandRow, openExportDialog, openPanel, phone, row, unexpected } from '../helpers/certhub-panel.js';

const screens: Array<[string, BrowserContextOptions]> = [
  ['desktop-dark', { ...desktop, colorScheme: 'dark' }],
  ['desktop-light', { ...desktop, colorScheme: 'light' }],
  ['phone-dark', { ...phone, colorScheme: 'dark' }],
  ['phone-light', { ...phone, colorScheme: 'light' }],
];

async function noSidewaysScroll(page: Page): Promise<boolean> {
  return page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth');
}

test('screenshots of both tabs, an expanded row and the export dialog: desktop and phone, light and dark', async (t) => {
  const server = await demoCerthub(t);
  await addDomains(server, [
    { name: 'www', target: '203.0.113.10' },
    { name: 'api', target: 'lb.example.net' },
    { name: 'mail', target: '2001:db8::25' },
    { name: 'a-rather-long-subdomain-name-for-wrapping', target: '203.0.113.11' },
  ]);
  for (const [name, options] of screens) {
    const { page, problems } = await openPanel(t, server, options);
    await page.locator('.row[data-status="issued"]').nth(3).waitFor();
    await saveScreenshot(page, `certhub-panel-domains-${name}`, { fullPage: true });
    await assertAccessible(t, page, `${name}: the domain list`);
    t.true(await noSidewaysScroll(page), `${name}: no sideways scrolling`);

    await expandRow(page, 'api.example.test');
    await saveScreenshot(page, `certhub-panel-expanded-${name}`, { fullPage: true });
    await assertAccessible(t, page, `${name}: an expanded row`);
    t.true(await noSidewaysScroll(page), `${name}: expanded row fits`);

    await row(page, 'www.example.test').getByRole('checkbox').check();
    await row(page, 'mail.example.test').getByRole('checkbox').check();
    await openExportDialog(page);
    await page.getByLabel('Proxy (JSON)').check();
    await saveScreenshot(page, `certhub-panel-export-${name}`);
    await assertAccessible(t, page, `${name}: the export dialog`);
    await page.getByRole('button', { name: 'Close' }).click();

    await page.getByRole('tab', { name: 'Logs' }).click();
    await page.locator('#log-lines .log-line').nth(4).waitFor();
    await saveScreenshot(page, `certhub-panel-logs-${name}`);
    await assertAccessible(t, page, `${name}: the logs tab`);
    t.true(await noSidewaysScroll(page), `${name}: logs fit`);
    t.deepEqual(unexpected(problems), [], name);
  }
});

test('keyboard alone: log in, add a domain, expand it, tick it, export it', async (t) => {
  const server = await demoCerthub(t);
  const { page, problems } = await newPage(t, desktop);
  await page.goto(server.url);
  // The login opens with the key field focused: typing goes straight into it.
  await page.locator('#login-key:focus').waitFor();
  await assertAccessible(t, page, 'the login');
  await page.keyboard.type(testAdminKey);
  await page.keyboard.press('Enter');
  await page.locator('body[data-session="in"]').waitFor();
  // Tab order: the tabs, Log out, then the add form.
  await page.getByLabel('Subdomain').focus();
  await page.keyboard.type('kbd');
  await page.keyboard.press('Tab');
  await page.keyboard.type('203.0.113.50');
  await page.keyboard.press('Enter');
  const kbd = row(page, 'kbd.example.test');
  await kbd.waitFor();
  await kbd.getByRole('checkbox').focus();
  await page.keyboard.press('Space');
  await page.keyboard.press('Tab');
  t.is(await page.evaluate<string>('document.activeElement.textContent'), 'kbd.example.test');
  await page.keyboard.press('Enter');
  await kbd.locator('.details[aria-busy="false"]').waitFor();
  t.is(await page.evaluate<string>('document.activeElement.getAttribute("aria-expanded")'), 'true', 'focus stays on the expanded row');
  await page.getByRole('button', { name: 'Export…' }).focus();
  await page.keyboard.press('Enter');
  t.not(await page.locator('#export').getAttribute('open'), null);
  await page.keyboard.press('Escape');
  t.is(await page.locator('#export').getAttribute('open'), null);
  // The tab list answers the arrow keys.
  await page.getByRole('tab', { name: 'Domains' }).focus();
  await page.keyboard.press('ArrowRight');
  t.is(await page.getByRole('tab', { name: 'Logs' }).getAttribute('aria-selected'), 'true');
  t.deepEqual(unexpected(problems), []);
});
