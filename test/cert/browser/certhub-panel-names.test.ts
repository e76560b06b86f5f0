// The panel's name sets, against a real `certhub run --demo`: the add form checks the other names as
// they are typed and sends them; the expanded row lists every name of the certificate and edits the
// set (PATCH), with the same checks, and shows the server's refusal of a name another domain holds. Chromium.
import test from 'ava';
import { saveScreenshot } from '../../helpers/browser.js';
import { demoCerthub, domainView, expandRow, openPanel, row, unexpected } from '../helpers/certhub-panel.js';

test('the add form sends other names checked as typed; the expanded row lists and edits them', async (t) => {
  const server = await demoCerthub(t);
  const { page, problems } = await openPanel(t, server);
  const names = page.getByLabel('Other names');
  await page.getByLabel('Subdomain').fill('app');
  await page.getByLabel('Target').fill('203.0.113.70');
  await names.fill('www.app, a*.app');
  t.is(await page.locator('#add-names-hint').textContent(), 'a*.app: a wildcard is a whole first label, as in *.app');
  t.is(await names.getAttribute('aria-invalid'), 'true');
  await names.fill('www.app, *.app');
  t.is(await page.locator('#add-names-hint').textContent(), '');
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await row(page, 'app.example.test').waitFor();
  t.deepEqual((await domainView(server, 'app')).names, ['www.app.example.test', '*.app.example.test']);
  t.is(await names.inputValue(), '', 'the field is cleared once the domain is added');

  const details = await expandRow(page, 'app.example.test');
  t.deepEqual(await details.locator('.name-list li').allTextContents(), ['app.example.test', 'www.app.example.test', '*.app.example.test']);
  const edit = details.getByLabel('Other names of app.example.test');
  t.is(await edit.inputValue(), 'www.app, *.app');
  const save = details.getByRole('button', { name: 'Save the names of app.example.test' });
  t.false(await save.isVisible(), 'nothing to save until the names change');
  await edit.fill(`www.app, *.app, ${'x'.repeat(64)}.app`);
  t.regex((await details.locator('.names-row .hint').textContent()) ?? '', /a label of at most 63 characters/);
  await edit.fill('www.app, *.app, a.b.app');
  t.is(await details.locator('.names-row .hint').textContent(), '');
  await saveScreenshot(page, 'certhub-panel-names');
  await save.click();
  await save.waitFor({ state: 'hidden' });
  t.deepEqual((await domainView(server, 'app')).names, ['www.app.example.test', '*.app.example.test', 'a.b.app.example.test']);
  await details.locator('.name-list li', { hasText: 'a.b.app.example.test' }).waitFor();

  // A name another domain holds: the server's 409 is shown under the field.
  await server.admin('api/admin/domains', { method: 'POST', body: { name: 'shop', target: '203.0.113.71', names: ['www.shop'] } });
  await edit.fill('www.app, www.shop');
  await save.click();
  await details.locator('.names-row .hint', { hasText: 'www.shop.example.test is a name of the domain shop.example.test' }).waitFor();
  t.deepEqual(unexpected(problems, [409]), []);
});
