// The certhub panel's Export, against `certhub run --demo`: each of the four formats checked exactly
// for one domain and for several, the server URL (the page's origin unless overridden), select-all
// under a filter exporting only the rows shown, copy and download. The JSON is also parsed with the
// schemas certhub-agent reads its configs with (actors/proxy/agent-exports.ts).
import test, { type ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';
import { fetchManySchema, fetchOneSchema, placeholderBackend, proxyRoutesSchema } from '../../../actors/proxy/agent-exports.js';
import { downloadedText } from '../../helpers/browser.js';
import { addDomains, demoCerthub, openExportDialog, openPanel, row, type DomainView, unexpected } from '../helpers/certhub-panel.js';

const formats = { 'Fetch (JSON)': 'fetch-json', 'Fetch CLI': 'fetch-cli', 'Proxy (JSON)': 'proxy-json', CSV: 'csv' } as const;

/** What each format must say for `domains` (in list order) and `server`, written out by hand. */
function expected(format: (typeof formats)[keyof typeof formats], domains: DomainView[], server: string): string {
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  switch (format) {
    case 'fetch-json':
      return domains.length === 1
        ? json({ server, domain: domains[0]?.name, token: domains[0]?.token })
        : json({ server, domains: Object.fromEntries(domains.map((domain) => [domain.name, { token: domain.token }])) });
    case 'fetch-cli':
      return domains.map((domain) => `certhub-agent fetch -s ${server} -t ${domain.token} -d ${domain.name}\n`).join('');
    case 'proxy-json':
      return json({ server, routes: Object.fromEntries(domains.map((domain) => [domain.name, { backend: placeholderBackend, token: domain.token }])) });
    case 'csv':
      return domains.map((domain) => `${domain.token}, ${domain.name}\n`).join('');
  }
}

async function checkFormats(t: ExecutionContext, page: Page, domains: DomainView[], server: string): Promise<void> {
  for (const [label, format] of Object.entries(formats)) {
    await page.getByLabel(label).check();
    const output = await page.locator('#export-output').inputValue();
    t.is(output, expected(format, domains, server), `${label} for ${domains.length} domain(s)`);
    if (format === 'fetch-json') t.notThrows(() => (domains.length === 1 ? fetchOneSchema : fetchManySchema).parse(JSON.parse(output)));
    if (format === 'proxy-json') t.notThrows(() => proxyRoutesSchema.parse(JSON.parse(output)));
  }
}

test('export one domain and several: every format exactly, for the page origin and an overridden server URL', async (t) => {
  const server = await demoCerthub(t);
  const [web, api, db] = await addDomains(server, [
    { name: 'web', target: '203.0.113.1' },
    { name: 'api', target: '203.0.113.2' },
    { name: 'db', target: 'host.example.net' },
  ]);
  const { page, problems } = await openPanel(t, server);
  const origin = new URL(server.url).origin;
  await row(page, 'web.example.test').getByRole('checkbox', { name: 'Select web.example.test' }).check();
  t.is(await page.locator('#bulk-count').textContent(), '1 selected');
  await openExportDialog(page);
  t.is(await page.locator('#export-title').textContent(), 'Export web.example.test');
  t.is(await page.getByLabel('Server URL').inputValue(), origin, 'the server URL starts as the page origin');
  await checkFormats(t, page, [web!], origin);

  await page.getByLabel('Server URL').fill('https://certs.example.com:8443');
  await checkFormats(t, page, [web!], 'https://certs.example.com:8443');
  await page.getByLabel('Fetch CLI').check();
  await page.getByLabel('Server URL').fill('ftp://nope');
  t.regex((await page.locator('#export-server-hint').textContent()) ?? '', /http:\/\/ or https:\/\//);
  t.regex(await page.locator('#export-output').inputValue(), new RegExp(`-s ${origin} `), 'an unusable URL falls back to the origin');
  await page.getByLabel('Server URL').fill(origin);
  await page.getByRole('button', { name: 'Close' }).click();

  for (const name of ['api', 'db']) await row(page, `${name}.example.test`).getByRole('checkbox').check();
  t.is(await page.locator('#bulk-count').textContent(), '3 selected');
  await openExportDialog(page);
  t.is(await page.locator('#export-title').textContent(), 'Export 3 domains');
  await checkFormats(t, page, [api!, db!, web!], origin);

  // Copy puts the output on the clipboard; Download saves it under the format's file name.
  await page.getByLabel('CSV').check();
  await page.getByRole('button', { name: 'Copy the export' }).click();
  await page.getByRole('button', { name: 'Copy the export' }).filter({ hasText: 'Copied' }).waitFor();
  t.is(await page.evaluate<string>('navigator.clipboard.readText()'), expected('csv', [api!, db!, web!], origin));
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download' }).click()]);
  t.is(download.suggestedFilename(), 'certhub-tokens.csv');
  t.is(await downloadedText(download), expected('csv', [api!, db!, web!], origin));
  await page.keyboard.press('Escape');
  t.is(await page.locator('#export').getAttribute('open'), null, 'Esc closes the dialog');
  t.deepEqual(unexpected(problems), []);
});

test('select-all under a filter ticks and exports only the rows shown', async (t) => {
  const server = await demoCerthub(t);
  const added = await addDomains(
    server,
    ['shop', 'shop-admin', 'blog', 'mail'].map((name, index) => ({ name, target: `203.0.113.${index + 10}` })),
  );
  const { page, problems } = await openPanel(t, server);
  await page.getByLabel('Filter domains').fill('SHOP');
  await page.getByLabel('Select all shown domains').check();
  t.is(await page.locator('#bulk-count').textContent(), '2 selected');
  await openExportDialog(page);
  await page.getByLabel('CSV').check();
  const shop = added.filter((domain) => domain.label.startsWith('shop'));
  t.is(await page.locator('#export-output').inputValue(), expected('csv', shop, new URL(server.url).origin));
  await page.getByRole('button', { name: 'Close' }).click();
  // Unticking select-all clears what it ticked.
  await page.getByLabel('Select all shown domains').uncheck();
  t.true(await page.locator('#bulk-bar').isHidden());
  t.deepEqual(unexpected(problems), []);
});
