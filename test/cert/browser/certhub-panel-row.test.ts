// An expanded row of the certhub panel, against `certhub run --demo`: the target edited (a refusal
// shown inline, a saved one said so), expiry, the masked token shown, copied and rotated (after an in-page confirmation), the .crt
// and .key downloads, the last fetch appearing live, and Remove (after an in-page confirmation).
import test from 'ava';
import type { Page } from 'playwright-core';
import { downloadedText } from '../../helpers/browser.js';
import { assertAccessible } from '../../helpers/accessibility.js';
import { addDomains, demoCerthub, domainView, expandRow, openPanel, row, unexpected } from '../helpers/certhub-panel.js';

/** Answers the in-page confirmation titled `title` with its `button`, and waits for it to close. */
async function answerConfirmation(page: Page, title: string, button: string): Promise<void> {
  const dialog = page.getByRole('dialog', { name: title });
  await dialog.getByRole('button', { name: button, exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
}

test('expanded row: edit the target, see expiry and token, copy and rotate it, download .crt and .key, watch the last fetch', async (t) => {
  const server = await demoCerthub(t);
  await addDomains(server, [{ name: 'app', target: '203.0.113.5' }]);
  const { page, problems } = await openPanel(t, server);
  const app = row(page, 'app.example.test');
  await app.locator('.status', { hasText: 'issued' }).waitFor();
  const toggle = app.getByRole('button', { name: 'app.example.test', exact: true });
  t.is(await toggle.getAttribute('aria-expanded'), 'false');
  const details = await expandRow(page, 'app.example.test');
  t.is(await toggle.getAttribute('aria-expanded'), 'true');
  const issued = await domainView(server, 'app');
  t.regex((await details.textContent()) ?? '', new RegExp(`Expires${issued.expires_at?.slice(0, 16).replace('T', ' ')} UTC`));
  t.regex((await details.textContent()) ?? '', /Last fetchnever/);

  // The token: masked, shown on demand, copied, rotated only after saying yes.
  const token = details.locator('.token');
  t.is(await token.textContent(), '•'.repeat(16));
  await details.getByRole('button', { name: 'Show the token of app.example.test' }).click();
  t.is(await token.textContent(), issued.token);
  await details.getByRole('button', { name: 'Copy the token of app.example.test' }).click();
  await details.getByRole('button', { name: 'Copy the token of app.example.test' }).filter({ hasText: 'Copied' }).waitFor();
  t.is(await page.evaluate<string>('navigator.clipboard.readText()'), issued.token);
  await details.getByRole('button', { name: 'Rotate the token of app.example.test' }).click();
  await answerConfirmation(page, 'Rotate the token of app.example.test?', 'Cancel');
  t.is((await domainView(server, 'app')).token, issued.token, 'saying no rotates nothing');
  await details.getByRole('button', { name: 'Rotate the token of app.example.test' }).click();
  await assertAccessible(t, page, 'the rotate confirmation');
  await answerConfirmation(page, 'Rotate the token of app.example.test?', 'Rotate');
  await token.filter({ hasNotText: issued.token }).waitFor();
  const rotated = await domainView(server, 'app');
  t.not(rotated.token, issued.token);
  t.is(await token.textContent(), rotated.token);

  // The target: a bad one is told as typed, a refused one inline, a good one saved.
  const target = details.getByLabel('Target');
  t.is(await target.inputValue(), '203.0.113.5');
  await target.fill('app.example.test');
  await details.getByRole('button', { name: 'Save' }).click();
  await details.locator('.target-form .hint', { hasText: 'CNAME cannot point to its own name' }).waitFor();
  await target.fill('bad host.example.net');
  t.regex((await details.locator('.target-form .hint').textContent()) ?? '', /host names hold/);
  await target.fill('198.51.100.20');
  await details.getByRole('button', { name: 'Save' }).click();
  await details.locator('.target-form .hint.saved', { hasText: 'Saved: A record to 198.51.100.20.' }).waitFor();
  t.is((await domainView(server, 'app')).target, '198.51.100.20', 'the save is answered once the server holds it');
  await assertAccessible(t, page, 'a saved target');
  await target.fill('198.51.100.21');
  t.is(await details.locator('.target-form .hint').textContent(), '', 'typing again clears the saved note');

  // Downloads are the server's material under the domain's own file names.
  for (const [label, file, field] of [
    ['Certificate (.crt)', 'app.example.test.crt', 'cert.crt'],
    ['Key (.key)', 'app.example.test.key', 'key.key'],
  ] as const) {
    const [download] = await Promise.all([page.waitForEvent('download'), details.getByRole('link', { name: label }).click()]);
    t.is(download.suggestedFilename(), file);
    const expected = await (await server.admin(`api/admin/domains/app/${field}`)).text();
    t.is(await downloadedText(download), expected);
  }

  // A client fetching the certificate shows up in the open row without a reload.
  const fetched = await fetch(`${server.url}api/cert/app`, { headers: { authorization: `Bearer ${rotated.token}` } });
  t.is(fetched.status, 200);
  await details.getByText(/UTC from 127\.0\.0\.1$/).waitFor({ timeout: 15_000 });
  t.deepEqual(unexpected(problems, [400]), []);
});

test('remove asks first; saying yes removes the domain from the server and the list', async (t) => {
  const server = await demoCerthub(t);
  await addDomains(server, [
    { name: 'old', target: '203.0.113.8' },
    { name: 'keep', target: '203.0.113.9' },
  ]);
  const { page, problems } = await openPanel(t, server);
  const old = row(page, 'old.example.test');
  await expandRow(page, 'old.example.test');
  await old.getByRole('button', { name: 'Remove old.example.test' }).click();
  await answerConfirmation(page, 'Remove old.example.test?', 'Cancel');
  t.is((await server.admin('api/admin/domains/old')).status, 200);
  await old.getByRole('button', { name: 'Remove old.example.test' }).click();
  await answerConfirmation(page, 'Remove old.example.test?', 'Remove');
  await old.waitFor({ state: 'detached' });
  t.is((await server.admin('api/admin/domains/old')).status, 404);
  t.is(await page.locator('#list-count').textContent(), '1 domain');
  t.deepEqual(problems, []);
});
