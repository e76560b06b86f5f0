// Host tokens in the certhub panel against `certhub run --demo`: an expanded row issues one for a
// named host and shows it once, with Copy; the token fetches the domain's certificate; the list names
// each host's token and its last use; Revoke asks in the in-page dialog, and the revoked token is
// refused while the domain token works on. Desktop and phone, each state checked by axe.
import test from 'ava';
import type { BrowserContextOptions } from 'playwright-core';
import { assertAccessible } from '../../helpers/accessibility.js';
import { saveScreenshot } from '../../helpers/browser.js';
import { addIssuedDomain } from '../../helpers/certhub-agent.js';
import { demoCerthub, desktop, expandRow, openPanel, phone, unexpected } from '../helpers/certhub-panel.js';

const screens: Array<[string, BrowserContextOptions]> = [
  ['desktop', { ...desktop, colorScheme: 'dark' }],
  ['phone', { ...phone, colorScheme: 'light' }],
];

test('an expanded row issues a host token shown once, lists it with its last use, and revokes it after asking', async (t) => {
  const server = await demoCerthub(t);
  const app = await addIssuedDomain(server, 'app');
  const fetchStatus = async (token: string) => (await fetch(`${server.url}api/cert/${app.name}`, { headers: { authorization: `Bearer ${token}` } })).status;
  for (const [screen, options] of screens) {
    const host = `web-${screen}`;
    const { page, problems } = await openPanel(t, server, options);
    const details = await expandRow(page, app.name);
    const tokens = details.locator('.host-tokens');
    await tokens.getByLabel('Host name').waitFor();

    // A bad name is said as it is typed, and refused without a request.
    await tokens.getByLabel('Host name').fill(' web');
    t.is(await tokens.locator('.hint').textContent(), 'the host name starts or ends with spaces');
    await tokens.getByLabel('Host name').fill(host);
    await tokens.getByRole('button', { name: `Issue token for a host of ${app.name}` }).click();
    const issued = tokens.locator('.host-token-issued');
    await issued.waitFor();
    const token = (await issued.locator('code').textContent()) ?? '';
    t.regex(token, /^chh_[A-Za-z0-9_-]{43}$/);
    t.regex((await issued.textContent()) ?? '', new RegExp(`Token for ${host}, shown once`));
    t.is(await issued.getByRole('button', { name: `Copy the new host token of ${app.name}` }).count(), 1);
    t.is(await tokens.getByLabel('Host name').inputValue(), '', 'the form is emptied for the next host');
    await tokens.locator('form').scrollIntoViewIfNeeded();
    await saveScreenshot(page, `certhub-panel-host-token-issued-${screen}`);
    await assertAccessible(t, page, `${screen}: a host token issued, shown once`);
    const item = tokens.locator('.host-token', { has: page.locator('.host-name', { hasText: new RegExp(`^${host}$`) }) });
    await item.waitFor();
    t.regex((await item.textContent()) ?? '', /id [0-9a-f]{16} · created \d{4}-\d\d-\d\d \d\d:\d\d UTC · last used never/);

    t.is(await fetchStatus(token), 200, 'the token shown fetches the certificate');
    // Its use reaches the list within a few seconds; a row reads the list when it expands.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await page.reload();
    const again = await expandRow(page, app.name);
    const usedItem = again.locator('.host-token', { has: page.locator('.host-name', { hasText: new RegExp(`^${host}$`) }) });
    await usedItem.filter({ hasText: /last used \d{4}/ }).waitFor();
    t.is(await again.locator('.host-token-issued').isVisible(), false, 'the token is not shown again');
    await again.locator('.host-tokens form').scrollIntoViewIfNeeded();
    await saveScreenshot(page, `certhub-panel-host-tokens-${screen}`);
    await assertAccessible(t, page, `${screen}: an expanded row's host tokens`);

    // Cancel keeps the token; Revoke shuts it out, and the domain token fetches on.
    const revoke = usedItem.getByRole('button', { name: `Revoke the host token of ${host} for ${app.name}` });
    await revoke.click();
    const dialog = page.getByRole('dialog', { name: `Revoke the host token of ${host}?` });
    await dialog.waitFor();
    t.regex((await dialog.textContent()) ?? '', /The domain token and the other hosts' tokens keep working/);
    await saveScreenshot(page, `certhub-panel-host-tokens-revoke-dialog-${screen}`);
    await assertAccessible(t, page, `${screen}: the dialog that revokes a host token`);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    t.is(await fetchStatus(token), 200);
    await revoke.click();
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await usedItem.waitFor({ state: 'detached' });
    t.is(await again.locator('.host-tokens .hint').textContent(), `The host token of ${host} is revoked.`);
    t.is(await fetchStatus(token), 401);
    t.is(await fetchStatus(app.token), 200);
    await assertAccessible(t, page, `${screen}: a host token revoked`);
    t.deepEqual(unexpected(problems), []);
  }
});
