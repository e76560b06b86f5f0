// The certhub panel's Domains tab as a user works it, against `certhub run --demo`: log in (a wrong
// key is told), add a domain (the form checks as you type, the server's refusal shows inline), rows
// that follow the server without a reload, sort and its reversal, the filter and Esc.
import test from 'ava';
import { testAdminKey } from '../../helpers/certhub.js';
import { newPage } from '../../helpers/browser.js';
import { eventually } from '../../helpers/fixture-host.js';
import { addDomains, demoCerthub, domainView, desktop, logIn, openPanel, row, shownNames, unexpected } from '../helpers/certhub-panel.js';

test('login: a wrong key is refused with a message, the right one opens the panel; logout asks again', async (t) => {
  const server = await demoCerthub(t);
  const { page, problems } = await newPage(t, desktop);
  await page.goto(server.url);
  await page.getByLabel('Admin key').fill('not-the-key');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByText('Wrong admin key.').waitFor();
  t.not(await page.locator('#login').getAttribute('open'), null, 'the login dialog stays open');
  await logIn(page, testAdminKey);
  t.is(await page.locator('#list-count').textContent(), '0 domains');
  t.true(await page.getByText('No domains yet').isVisible());
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByLabel('Admin key').waitFor();
  t.is((await fetch(`${server.url}api/admin/prefs`)).status, 401, 'no cookie, no access');
  t.deepEqual(unexpected(problems, [401]), []);
});

test('login: the rate limit says when to try again', async (t) => {
  const server = await demoCerthub(t);
  const { page } = await newPage(t, desktop);
  await page.goto(server.url);
  const message = page.locator('#login-error');
  // The login limit allows a burst of wrong keys; the page must say when the next try may come.
  for (let attempt = 0; attempt < 20 && !((await message.textContent()) ?? '').includes('Try again'); attempt++) {
    await page.getByLabel('Admin key').fill(`wrong-${attempt}`);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.locator(`#login-error[data-attempt="${attempt + 1}"]`).waitFor();
  }
  t.regex((await message.textContent()) ?? '', /^Too many wrong keys\. Try again in \d+ s \(at .+\)\.$/);
});

test('add: checked as typed, refused inline by the server, then added and issued live', async (t) => {
  const server = await demoCerthub(t);
  await addDomains(server, [{ name: 'taken', target: '203.0.113.1' }]);
  const { page, problems } = await openPanel(t, server);
  await page.getByLabel('Subdomain').fill('bad_name');
  t.regex((await page.locator('#add-name-hint').textContent()) ?? '', /letters, digits and hyphens/);
  t.is(await page.getByLabel('Subdomain').getAttribute('aria-invalid'), 'true');
  await page.getByLabel('Subdomain').fill('web');
  t.is(await page.locator('#add-name-hint').textContent(), '');
  await page.getByLabel('Target').fill('host');
  t.regex((await page.locator('#add-target-hint').textContent()) ?? '', /fully qualified/);
  await page.getByLabel('Target').fill('web');
  await page.getByLabel('Subdomain').fill('taken');
  await page.getByLabel('Target').fill('198.51.100.4');
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await page.locator('#add-error:not([hidden])').waitFor();
  t.regex((await page.locator('#add-error').textContent()) ?? '', /taken/);
  t.is(await page.getByLabel('Subdomain').inputValue(), 'taken', 'what was typed stays for correcting');

  await page.getByLabel('Subdomain').fill('web');
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await row(page, 'web.example.test').waitFor();
  t.is(await page.getByLabel('Subdomain').inputValue(), '');
  await row(page, 'web.example.test').locator('.status', { hasText: 'issued' }).waitFor();
  t.regex((await row(page, 'web.example.test').locator('.row-expires').textContent()) ?? '', /^\d{4}-\d\d-\d\d$/);

  // A domain added by someone else (a script here) appears without a reload.
  await addDomains(server, [{ name: 'api', target: '203.0.113.9' }]);
  await row(page, 'api.example.test').waitFor();
  t.deepEqual(await shownNames(page), ['api.example.test', 'taken.example.test', 'web.example.test']);
  // ...and one removed by someone else goes.
  t.is((await server.admin('api/admin/domains/taken', { method: 'DELETE' })).status, 204);
  await row(page, 'taken.example.test').waitFor({ state: 'detached' });
  t.is(await page.locator('#list-count').textContent(), '2 domains');
  t.deepEqual(unexpected(problems, [409]), []);
});

test('sort by name and expiry, reversing with the indicator; the filter is case-insensitive and Esc clears it', async (t) => {
  const server = await demoCerthub(t);
  // Each issued before the next is added, a second apart (certificate times are whole seconds), so
  // expiry order is the order added: c, a, b.
  for (const name of ['charlie', 'alpha', 'bravo']) {
    await addDomains(server, [{ name, target: '203.0.113.7' }]);
    t.true(await eventually(async () => (await domainView(server, name)).status === 'issued'));
    await new Promise((resolve) => setTimeout(resolve, 1100));
  }
  const { page, problems } = await openPanel(t, server);
  await page.locator('.row[data-status="issued"]').nth(2).waitFor();
  const byName = page.locator('#sort-name');
  const byExpiry = page.locator('#sort-expires');
  t.deepEqual(await shownNames(page), ['alpha.example.test', 'bravo.example.test', 'charlie.example.test']);
  t.is(await byName.getAttribute('aria-pressed'), 'true');
  t.is(await byName.locator('.sort-mark').textContent(), '▲');
  await byName.click();
  t.deepEqual(await shownNames(page), ['charlie.example.test', 'bravo.example.test', 'alpha.example.test']);
  t.is(await byName.locator('.sort-mark').textContent(), '▼');
  await byExpiry.click();
  t.deepEqual(await shownNames(page), ['charlie.example.test', 'alpha.example.test', 'bravo.example.test']);
  t.is(await byExpiry.locator('.sort-mark').textContent(), '▲');
  t.is(await byName.locator('.sort-mark').textContent(), '');
  await byExpiry.click();
  t.deepEqual(await shownNames(page), ['bravo.example.test', 'alpha.example.test', 'charlie.example.test']);
  t.is(await byExpiry.locator('.sort-mark').textContent(), '▼');

  const filter = page.getByLabel('Filter domains');
  await filter.fill('AL');
  t.deepEqual(await shownNames(page), ['alpha.example.test']);
  t.is(await page.locator('#list-count').textContent(), '1 of 3 shown');
  await filter.press('Escape');
  t.is(await filter.inputValue(), '');
  t.is((await shownNames(page)).length, 3);
  await filter.fill('zzz');
  t.true(await page.getByText('No domain matches “zzz”.').isVisible());
  await page.getByRole('button', { name: 'Clear filter' }).click();
  t.is((await shownNames(page)).length, 3);
  t.deepEqual(problems, []);
});
