// The certhub panel when answers are slow or do not come, against `certhub run --demo`: quick adds
// in a row (an answer clears only what its add sent), certhub stopped (a banner, and an add that
// waits instead of failing) and started again (the login says the restart ended the session, then
// the add goes through), and the add form's words for a blank name and a URL as target.
import test from 'ava';
import type { Route } from 'playwright-core';
import { reservePort } from '../../../src/http/port.js';
import { saveScreenshot } from '../../helpers/browser.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addDomains, demoCerthub, logIn, openPanel, row, unexpected } from '../helpers/certhub-panel.js';
import { eventually } from '../../helpers/fixture-host.js';

test('quick adds: each answer clears only the fields that still hold what its add sent', async (t) => {
  const server = await demoCerthub(t);
  const { page, problems } = await openPanel(t, server);
  // The server adds at once; its answers are held back here, as a slow link would.
  const held: Array<() => void> = [];
  await page.route('**/api/admin/domains', async (route: Route) => {
    if (route.request().method() !== 'POST') return route.continue();
    const response = await route.fetch();
    await new Promise<void>((release) => held.push(release));
    await route.fulfill({ response });
  });
  const name = page.getByLabel('Subdomain');
  const target = page.getByLabel('Target');
  await name.fill('alpha');
  await target.fill('203.0.113.1');
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  t.true(await eventually(() => Promise.resolve(held.length === 1)), 'the first add is on its way');
  await name.fill('bravo');
  await target.fill('203.0.113.2');
  await target.press('Enter');
  t.true(await eventually(() => Promise.resolve(held.length === 2)), 'the second add is sent while the first waits');
  await name.fill('charlie');
  await target.fill('203.0.113.3');

  for (const release of held) release();
  await page.locator('#add-form[aria-busy="false"]').waitFor();
  await row(page, 'alpha.example.test').waitFor();
  await row(page, 'bravo.example.test').waitFor();
  t.is(await name.inputValue(), 'charlie', 'what was typed after the adds is still there');
  t.is(await target.inputValue(), '203.0.113.3');

  await page.unroute('**/api/admin/domains');
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await row(page, 'charlie.example.test').waitFor();
  await page.locator('#add-form[aria-busy="false"]').waitFor();
  t.is(await name.inputValue(), '', 'an answer clears the fields that still hold what it sent');
  t.is(await target.inputValue(), '');
  t.is((await server.admin('api/admin/domains/charlie')).status, 200);
  t.deepEqual(unexpected(problems), []);
});

test("add form: a blank name and a URL as target are told in words, the server's own", async (t) => {
  const server = await demoCerthub(t);
  const { page, problems } = await openPanel(t, server);
  await page.getByLabel('Target').fill('http://example.net');
  t.is(await page.locator('#add-target-hint').textContent(), 'a target is an IP address or a host name, not a URL (give example.net)');
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  t.is(await page.locator('#add-name-hint').textContent(), 'give a name');
  t.is(await page.getByLabel('Subdomain').getAttribute('aria-invalid'), 'true');
  await saveScreenshot(page, 'certhub-panel-add-words');
  await page.getByLabel('Target').fill('example.net');
  t.is(await page.locator('#add-target-hint').textContent(), '');
  t.is((await server.admin('api/admin/domains')).status, 200);
  t.deepEqual(await (await server.admin('api/admin/domains')).json(), { domains: [] }, 'nothing was sent');
  t.deepEqual(unexpected(problems), []);
});

/** The console errors a stopped server makes Chromium log (each refused request); nothing else may appear. */
const refusedConnection = /ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE|ERR_CONNECTION_RESET/;

test('certhub stopped: a banner says it is not reachable and an add waits; restarted: the login says why, then the add goes through', async (t) => {
  const dataDir = await certhubDataDir(t);
  // A port of its own from the start, as a service has: one the system picked for a listener that
  // asked for 0 cannot be listened on again while its closed connections linger (TIME_WAIT).
  const port = ['--demo', '-p', String(await reservePort('127.0.0.1'))];
  const first = await startCerthub(t, dataDir, port);
  const { page, problems } = await openPanel(t, first);
  await addDomains(first, [{ name: 'before', target: '203.0.113.1' }]);
  await row(page, 'before.example.test').waitFor();

  first.child.kill('SIGTERM');
  await first.exited;
  const banner = page.locator('#unreachable');
  await banner.getByText('certhub is not reachable, retrying').waitFor();
  t.is(await page.locator('body').getAttribute('data-connection'), 'unreachable');
  await page.getByLabel('Subdomain').fill('during');
  await page.getByLabel('Target').fill('203.0.113.2');
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  t.is(await page.locator('#add-form').getAttribute('aria-busy'), 'true', 'the add waits for certhub');
  await saveScreenshot(page, 'certhub-panel-unreachable');
  t.true(await page.locator('#add-error').isHidden(), 'no "Failed to fetch"');

  // The same port, as a restarted service has: the page finds it again there.
  const second = await startCerthub(t, dataDir, port);
  await page.getByText('certhub restarted, which ends every session').waitFor();
  t.true(await banner.isHidden(), 'the banner goes once certhub answers');
  await saveScreenshot(page, 'certhub-panel-restarted');
  await logIn(page);
  await row(page, 'during.example.test').waitFor();
  t.is((await second.admin('api/admin/domains/during')).status, 200, 'the add made during the outage went through');
  await page.locator('#add-form[aria-busy="false"]').waitFor();
  t.is(await page.getByLabel('Subdomain').inputValue(), '');
  t.is(await page.locator('body').getAttribute('data-connection'), 'live');
  t.deepEqual(
    unexpected(
      problems.filter((problem) => !refusedConnection.test(problem)),
      [401],
    ),
    [],
  );
});
