// The certhub panel served as certhub serves itself off loopback: the fingerprint of its
// self-signed certificate under the top bar and in every export; plain HTTP (insecure_http) in red;
// the Fetch CLI export quoted for a shell, with the normalised server URL.
import test from 'ava';
import type { Page } from 'playwright-core';
import { fetchManySchema, fetchOneSchema, proxyRoutesSchema } from '../../../actors/proxy/agent-exports.js';
import { saveScreenshot } from '../../helpers/browser.js';
import { certhubDataDir, startCerthub, startCerthubOffLoopback } from '../../helpers/certhub.js';
import { desktop, logIn, openExportDialog, openPanel, row, unexpected } from '../helpers/certhub-panel.js';
import { newPage } from '../../helpers/browser.js';

async function exportOf(page: Page, format: string): Promise<string> {
  await page.getByLabel(format, { exact: true }).check();
  return page.locator('#export-output').inputValue();
}

async function addInPanel(page: Page, name: string, target: string): Promise<void> {
  await page.getByLabel('Subdomain').fill(name);
  await page.getByLabel('Target').fill(target);
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await row(page, `${name}.example.test`).waitFor();
}

test('self-signed: the panel shows the fingerprint the start line printed, and every JSON and CLI export carries it', async (t) => {
  const server = await startCerthubOffLoopback(t, await certhubDataDir(t));
  const pin = server.pin ?? '';
  t.regex(pin, /^sha256:[0-9a-f]{64}$/);
  // A person accepts the self-signed certificate once, as with Proxmox or Cockpit.
  const { page, problems } = await newPage(t, { ...desktop, ignoreHTTPSErrors: true });
  await page.goto(server.url);
  await logIn(page);
  const notice = page.locator('#server-security');
  await notice.waitFor();
  t.is(await notice.getAttribute('data-kind'), 'pinned');
  t.is(await notice.locator('code').textContent(), pin);

  await addInPanel(page, 'web', '203.0.113.1');
  await addInPanel(page, 'api', '203.0.113.2');
  await row(page, 'web.example.test').getByRole('checkbox').check();
  await openExportDialog(page);
  const origin = new URL(server.url).origin;
  const one = fetchOneSchema.parse(JSON.parse(await exportOf(page, 'Fetch (JSON)')));
  t.like(one, { server: origin, pin, domain: 'web.example.test' });
  t.regex(await exportOf(page, 'Fetch CLI'), new RegExp(`^certhub-agent fetch -s ${origin} --pin ${pin} -t chd_[\\w-]{43} -d web\\.example\\.test\\n$`));
  t.like(proxyRoutesSchema.parse(JSON.parse(await exportOf(page, 'Proxy (JSON)'))), { server: origin, pin });
  t.notRegex(await exportOf(page, 'CSV'), /sha256/, 'the CSV holds tokens and names only');
  t.log(await saveScreenshot(page, 'certhub-self-signed-export'));
  await page.getByRole('button', { name: 'Close' }).click();
  await page.getByLabel('Select all shown domains').check();
  await openExportDialog(page);
  t.like(fetchManySchema.parse(JSON.parse(await exportOf(page, 'Fetch (JSON)'))), { server: origin, pin });
  await page.getByRole('button', { name: 'Close' }).click();
  t.log(await saveScreenshot(page, 'certhub-self-signed'));
  t.deepEqual(unexpected(problems), []);
});

test('insecure_http: the panel says in red that the keys cross the network in clear', async (t) => {
  const server = await startCerthubOffLoopback(t, await certhubDataDir(t, { insecure_http: true }));
  const { page, problems } = await openPanel(t, server);
  const notice = page.locator('#server-security');
  await notice.waitFor();
  t.is(await notice.getAttribute('data-kind'), 'insecure');
  t.regex((await notice.textContent()) ?? '', /Plain HTTP off loopback \(insecure_http\)/);
  // The theme's red (--high, the colour of form errors), resolved as the browser paints it.
  const [shown, red] = await page.evaluate<[string, string]>(`(() => {
    const probe = document.createElement('span');
    probe.style.color = 'var(--high)';
    document.body.append(probe);
    const red = getComputedStyle(probe).color;
    probe.remove();
    return [getComputedStyle(document.getElementById('server-security')).color, red];
  })()`);
  t.is(shown, red);
  t.log(await saveScreenshot(page, 'certhub-insecure-http'));
  t.deepEqual(unexpected(problems), []);
});

test('Fetch CLI: every argument quoted for a POSIX shell, the server URL normalised; on loopback no pin and no notice', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const { page, problems } = await openPanel(t, server);
  await addInPanel(page, 'web', '203.0.113.1');
  t.true(await page.locator('#server-security').isHidden());
  await row(page, 'web.example.test').getByRole('checkbox').check();
  await openExportDialog(page);
  await page.getByLabel('Server URL').fill("HTTPS://Certs.Example.COM:443/hub$(touch pwned)'x/");
  const cli = await exportOf(page, 'Fetch CLI');
  t.regex(cli, /^certhub-agent fetch -s 'https:\/\/certs\.example\.com\/hub\$\(touch%20pwned\)'\\''x' -t chd_[\w-]{43} -d web\.example\.test\n$/);
  await page.getByLabel('Server URL').fill('HTTPS://Certs.Example.COM:8443/');
  t.like(fetchOneSchema.parse(JSON.parse(await exportOf(page, 'Fetch (JSON)'))), { server: 'https://certs.example.com:8443' });
  t.false('pin' in (JSON.parse(await exportOf(page, 'Fetch (JSON)')) as object));
  t.deepEqual(unexpected(problems), []);
});
