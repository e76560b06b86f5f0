// The panel's Audit tab against `certhub run --demo`: the log in, the adds and a rotation appear
// newest first; the action and domain filters narrow the table; screenshots on a desktop and a phone.
import test from 'ava';
import type { Page } from 'playwright-core';
import { saveScreenshot } from '../../helpers/browser.js';
import { addDomains, demoCerthub, desktop, openPanel, phone, unexpected } from '../helpers/certhub-panel.js';

async function shownActions(page: Page): Promise<Array<[string, string]>> {
  return page.evaluate<Array<[string, string]>>(
    `[...document.querySelectorAll('#audit-rows tr')].map((row) => [row.cells[1].textContent, row.cells[2].textContent])`,
  );
}

/** Waits until the table shows what `done` accepts (the page's CSP refuses waitForFunction's eval). */
async function rowsUntil(page: Page, done: (rows: Array<[string, string]>) => boolean): Promise<Array<[string, string]>> {
  for (const deadline = Date.now() + 10_000; ; ) {
    const rows = await shownActions(page);
    if (done(rows) || Date.now() > deadline) return rows;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('the Audit tab lists the log newest first and filters it by action and domain', async (t) => {
  const server = await demoCerthub(t);
  await addDomains(server, [
    { name: 'www', target: '203.0.113.10' },
    { name: 'api', target: 'lb.example.net' },
  ]);
  t.is((await server.admin('api/admin/domains/www/rotate', { method: 'POST' })).status, 200);
  for (const [name, options] of [
    ['desktop', desktop],
    ['phone', { ...desktop, ...phone }],
  ] as const) {
    const { page, problems } = await openPanel(t, server, options);
    await page.getByRole('tab', { name: 'Audit' }).click();
    await page.getByRole('status').filter({ hasText: 'newest first' }).waitFor();
    const all = await shownActions(page);
    t.deepEqual(all.filter(([action]) => action !== 'login').slice(0, 3), [
      ['rotate', 'www.example.test'],
      ['add', 'api.example.test'],
      ['add', 'www.example.test'],
    ]);
    t.deepEqual(all[0], ['login', '—'], 'this very login first');
    await saveScreenshot(page, `certhub-panel-audit-${name}`, { fullPage: true });

    await page.getByLabel('Action', { exact: true }).selectOption('add');
    t.deepEqual(await rowsUntil(page, (rows) => rows.every(([action]) => action === 'add')), [
      ['add', 'api.example.test'],
      ['add', 'www.example.test'],
    ]);
    await page.getByRole('searchbox', { name: 'Domain' }).fill('www');
    t.deepEqual(await rowsUntil(page, (rows) => rows.length === 1), [['add', 'www.example.test']]);
    await page.getByLabel('Action', { exact: true }).selectOption('');
    t.deepEqual(await rowsUntil(page, (rows) => rows.length === 2 && rows[0]?.[0] === 'rotate'), [
      ['rotate', 'www.example.test'],
      ['add', 'www.example.test'],
    ]);
    t.deepEqual(unexpected(problems), [], name);
  }
});
