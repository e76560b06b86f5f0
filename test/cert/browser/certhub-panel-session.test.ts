// The certhub panel's memory and its session, against `certhub run --demo`: preferences saved through
// the server come back in a new browser; a session that ends while the user types brings the login
// back over the page, keeps what was typed and finishes the action; the live log tab.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { newPage, saveScreenshot } from '../../helpers/browser.js';
import { testAdminKey } from '../../helpers/certhub.js';
import { addDomains, demoCerthub, desktop, logIn, openExportDialog, openPanel, row, shownNames, unexpected } from '../helpers/certhub-panel.js';
import { eventually } from '../../helpers/fixture-host.js';

test('sort, filter, export format and server URL survive a new browser context', async (t) => {
  const server = await demoCerthub(t);
  await addDomains(
    server,
    ['alpha', 'beta', 'gamma', 'delta'].map((name, index) => ({ name, target: `203.0.113.${index + 1}` })),
  );
  const first = await openPanel(t, server);
  await first.page.locator('#sort-name').click();
  await first.page.getByLabel('Filter domains').fill('a');
  await row(first.page, 'alpha.example.test').getByRole('checkbox').check();
  await openExportDialog(first.page);
  await first.page.getByLabel('Proxy (JSON)').check();
  await first.page.getByLabel('Server URL').fill('https://certs.example.com');
  const remembered = { export_format: 'proxy-json', export_server_url: 'https://certs.example.com', sort: { key: 'name', direction: 'desc' }, filter: 'a' };
  const prefsFile = join(server.dataDir, 'prefs.json');
  t.true(
    await eventually(async () => JSON.stringify(JSON.parse(await readFile(prefsFile, 'utf8'))) === JSON.stringify(remembered)),
    'prefs.json holds the choices',
  );

  const second = await openPanel(t, server);
  t.is(await second.page.getByLabel('Filter domains').inputValue(), 'a');
  t.deepEqual(await shownNames(second.page), ['gamma.example.test', 'delta.example.test', 'beta.example.test', 'alpha.example.test']);
  t.is(await second.page.locator('#sort-name .sort-mark').textContent(), '▼');
  await row(second.page, 'beta.example.test').getByRole('checkbox').check();
  await openExportDialog(second.page);
  t.true(await second.page.getByLabel('Proxy (JSON)').isChecked());
  t.is(await second.page.getByLabel('Server URL').inputValue(), 'https://certs.example.com');
  t.deepEqual(unexpected([...first.problems, ...second.problems]), []);
});

// The session is ended the way a real one ends early: the same session cookie is logged out from
// another browser context (as another tab would), so no test-only setting or 12 h wait is needed.
test('an ended session asks for the key again without losing what was typed, then finishes the action', async (t) => {
  const server = await demoCerthub(t);
  const { page, problems } = await openPanel(t, server);
  await page.getByLabel('Filter domains').fill('la');
  await page.getByLabel('Subdomain').fill('later');
  await page.getByLabel('Target').fill('203.0.113.77');
  // The add is held in the browser until the session has ended (the page's event stream then brings
  // the login at once, so a click after the logout would not reach the button).
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/api/admin/domains', async (route) => {
    if (route.request().method() === 'POST') await released;
    await route.continue();
  });
  await page.getByRole('button', { name: 'Add', exact: true }).click();

  const elsewhere = await newPage(t, desktop);
  await elsewhere.page.context().addCookies(await page.context().cookies());
  await elsewhere.page.goto(server.url);
  await elsewhere.page.locator('body[data-session="in"]').waitFor();
  await elsewhere.page.getByRole('button', { name: 'Log out' }).click();
  await elsewhere.page.getByLabel('Admin key').waitFor();

  release();
  await page.getByText('Your session has ended').waitFor();
  t.is(await page.getByLabel('Subdomain').inputValue(), 'later', 'what was typed is still there behind the login');
  t.is(await page.getByLabel('Target').inputValue(), '203.0.113.77');
  t.is(await page.getByLabel('Filter domains').inputValue(), 'la');
  await page.getByLabel('Admin key').fill('wrong');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByText('Wrong admin key.').waitFor();
  await logIn(page, testAdminKey);
  await row(page, 'later.example.test').waitFor();
  t.is((await server.admin('api/admin/domains/later')).status, 200, 'the add went through after the login');
  t.deepEqual(unexpected(problems, [401]), []);
});

test('logs tab: backlog on open, live lines, level filter, auto-scroll that pauses while scrolled up', async (t) => {
  const server = await demoCerthub(t);
  await addDomains(server, [{ name: 'before', target: '203.0.113.1' }]);
  const { page, problems } = await openPanel(t, server);
  await page.getByRole('tab', { name: 'Logs' }).click();
  t.true(await page.locator('#domains-panel').isHidden());
  const lines = page.locator('#log-lines');
  await lines.getByText('added before.example.test -> 203.0.113.1 (A)').waitFor();
  await lines.getByText('admin logged in').first().waitFor();
  const info = lines.locator('.log-line[data-level="info"]').first();
  t.is(await info.locator('.log-level-tag').textContent(), 'info');
  const colour = (selector: string) =>
    page.evaluate<string>(`getComputedStyle(document.querySelector('#log-lines .log-line[data-level="info"] ${selector}')).color`);
  t.not(await colour('.log-level-tag'), await colour('.log-message'), 'the level is coloured');

  await addDomains(server, [{ name: 'live', target: '203.0.113.2' }]);
  await lines.getByText(/^issued live\.example\.test, valid until/).waitFor();
  await page.getByLabel('Log level').selectOption('error');
  t.true(await lines.getByText('added live.example.test -> 203.0.113.2 (A)').isHidden(), 'info lines hidden under errors only');
  await page.getByLabel('Log level').selectOption('info');
  t.true(await lines.getByText('added live.example.test -> 203.0.113.2 (A)').isVisible());

  // Enough lines to scroll: the view follows them while at the bottom.
  await addDomains(
    server,
    Array.from({ length: 40 }, (_, index) => ({ name: `bulk${index}`, target: `203.0.113.${index + 10}` })),
  );
  await lines.getByText(/^issued bulk39\.example\.test/).waitFor();
  const scrollTop = () => page.evaluate<number>(`document.querySelector('#log-lines').scrollTop`);
  const atBottom = () =>
    page.evaluate<boolean>(
      `(() => { const list = document.querySelector('#log-lines'); return list.scrollTop + list.clientHeight >= list.scrollHeight - 4; })()`,
    );
  t.true(await atBottom());
  await page.evaluate(`document.querySelector('#log-lines').scrollTop = 0`);
  const follow = page.getByRole('button', { name: 'Paused — jump to latest' });
  await follow.waitFor();
  await addDomains(server, [{ name: 'while-paused', target: '203.0.113.99' }]);
  await lines.getByText(/^issued while-paused\.example\.test/).waitFor({ state: 'attached' });
  t.is(await scrollTop(), 0, 'scrolled up: the view stays put');
  await follow.click();
  t.true(await atBottom());
  t.true(await follow.isHidden());
  t.deepEqual(unexpected(problems), []);
});

test('a demo certhub says it is a demo above the login dialog, and says where its admin key was printed', async (t) => {
  const server = await demoCerthub(t);
  const { page, problems } = await newPage(t, desktop);
  await page.goto(server.url);
  await page.getByLabel('Admin key').waitFor();
  const notice = page.locator('#demo-notice');
  await notice.waitFor();
  t.regex((await notice.textContent()) ?? '', /Demo\..*--demo.*self-signed.*admin key was printed on the terminal/s);
  await saveScreenshot(page, 'certhub-demo-login');
  await logIn(page);
  t.true(await notice.isVisible(), 'still shown once logged in');
  t.deepEqual(unexpected(problems), []);
});
