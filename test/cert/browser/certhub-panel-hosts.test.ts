// Which hosts serve what, in the certhub panel against `certhub run --demo`, the hosts made by reports
// POSTed with each domain's token as certhub-agent sends them: each row's hosts in words (nothing when
// none reports), stale ones marked; the Stale hosts filter; an expanded row's hosts with what makes
// each stale; Remove behind the in-page dialog, audited. Desktop and phone, each state checked by axe.
import test from 'ava';
import type { BrowserContextOptions } from 'playwright-core';
import type { HostReport } from '../../../actors/cert/hosts/report.js';
import { assertAccessible } from '../../helpers/accessibility.js';
import { saveScreenshot } from '../../helpers/browser.js';
import { addIssuedDomain } from '../../helpers/certhub-agent.js';
import type { RunningCerthub } from '../../helpers/certhub.js';
import { demoCerthub, desktop, expandRow, openPanel, phone, reportHost, row, servedSha256, shownNames, unexpected } from '../helpers/certhub-panel.js';

const hour = 3_600_000;

/** app: one current host, one whose reload failed, one serving an older certificate, one silent; shop: one current; idle: none. */
async function reportingFleet(server: RunningCerthub): Promise<void> {
  const app = await addIssuedDomain(server, 'app');
  const shop = await addIssuedDomain(server, 'shop');
  await addIssuedDomain(server, 'idle');
  const appSha = await servedSha256(server, 'app');
  const notAfter = new Date(Date.now() + 80 * 24 * hour).toISOString();
  const report = (id: string, name: string, fields: Partial<HostReport> = {}): HostReport => ({
    host_id: `host-${id}-0123456789ab`,
    host_name: name,
    agent: 'fetch',
    agent_version: '1.4.0',
    serving: { sha256: appSha, not_after: notAfter },
    reload: { ok: true, exit_code: 0, output: [] },
    next_check_at: new Date(Date.now() + hour).toISOString(),
    ...fields,
  });
  await reportHost(server, app, report('a', 'web-1'));
  await reportHost(
    server,
    app,
    report('b', 'web-2', {
      reload: {
        ok: false,
        exit_code: 3,
        output: ['nginx: [emerg] cannot load certificate "/etc/ssl/app/fullchain.pem"', 'nginx: configuration file test failed'],
      },
    }),
  );
  await reportHost(server, app, report('c', 'web-3', { serving: { sha256: 'ab'.repeat(32), not_after: new Date(Date.now() + 5 * 24 * hour).toISOString() } }));
  // Its next check was an hour ago: past it and the margin, it is silent.
  await reportHost(server, app, report('d', 'web-4', { next_check_at: new Date(Date.now() - hour).toISOString() }));
  await reportHost(server, shop, report('e', 'edge-1', { agent: 'proxy', serving: { sha256: await servedSha256(server, 'shop'), not_after: notAfter } }));
}

const screens: Array<[string, BrowserContextOptions]> = [
  ['desktop', { ...desktop, colorScheme: 'dark' }],
  ['phone', { ...phone, colorScheme: 'light' }],
];

test('rows say which hosts are stale, the filter keeps those domains, the expanded row lists the hosts and removes one after asking', async (t) => {
  const server = await demoCerthub(t);
  await reportingFleet(server);
  let removedOnce = false;
  for (const [screen, options] of screens) {
    const { page, problems } = await openPanel(t, server, options);
    const app = row(page, 'app.example.test');
    const words = (name: string) => row(page, name).locator('.row-hosts');
    const appWords = removedOnce ? '2 of 3 stale' : '3 of 4 stale';
    await app.locator('.hosts-words', { hasText: appWords }).waitFor({ state: 'attached' });
    t.is(await app.locator('.hosts-words').textContent(), appWords);
    t.is(await row(page, 'shop.example.test').locator('.hosts-words').textContent(), '1 host: all current');
    t.is(await words('idle.example.test').textContent(), '', 'no host reports: the row says nothing of hosts');
    t.is(await app.getAttribute('data-deployment'), 'stale');
    t.is(await row(page, 'shop.example.test').getAttribute('data-deployment'), 'current');
    t.is(await row(page, 'idle.example.test').getAttribute('data-deployment'), 'none');
    // Shown: the full words on a desktop, the short ones on a phone.
    t.true(await words('app.example.test').isVisible());
    t.is(await app.locator(screen === 'phone' ? '.hosts-short' : '.hosts-words').isVisible(), true);
    if (screen === 'phone') t.is(await app.locator('.hosts-short').textContent(), removedOnce ? '2/3 stale' : '3/4 stale');
    await saveScreenshot(page, `certhub-panel-hosts-list-${screen}`, { fullPage: true });
    await assertAccessible(t, page, `${screen}: rows with their hosts`);

    const staleFilter = page.getByRole('button', { name: 'Stale hosts' });
    await staleFilter.click();
    t.is(await staleFilter.getAttribute('aria-pressed'), 'true');
    await page.locator('#list-count', { hasText: '1 of 3 shown' }).waitFor();
    t.deepEqual(await shownNames(page), ['app.example.test']);
    await assertAccessible(t, page, `${screen}: the Stale hosts filter on`);
    await page.getByLabel('Filter domains').fill('shop');
    t.is(await page.locator('#rows-empty').textContent(), 'No domain with a stale host matches “shop”.');
    await page.getByLabel('Filter domains').fill('');
    await staleFilter.click();
    await page.locator('#list-count', { hasText: '3 domains' }).waitFor();

    const details = await expandRow(page, 'app.example.test');
    const hosts = details.getByRole('region', { name: 'Hosts of app.example.test' });
    const host = (name: string) => hosts.locator('.host', { has: page.locator('.host-name', { hasText: new RegExp(`^${name}$`) }) });
    await host('web-1').waitFor();
    t.is(await details.locator('.hosts-summary').textContent(), appWords);
    t.is(await host('web-1').getAttribute('data-state'), 'current');
    const web1 = (await host('web-1').textContent()) ?? '';
    t.regex(web1, /Address127\.0\.0\.1/);
    t.regex(web1, /Certificate([0-9a-f]{2}:){7}[0-9a-f]{2}…/);
    t.regex(web1, /Served since\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    t.regex(web1, /Last report\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    t.regex(web1, /Agentfetch 1\.4\.0/);
    t.is(await host('web-1').locator('.host-problems').count(), 0);
    t.is(await host('web-2').getAttribute('data-state'), 'stale');
    t.is(await host('web-2').locator('.host-problems').textContent(), 'Reload failed with exit code 3');
    t.is(
      await host('web-2').locator('.host-output').textContent(),
      'nginx: [emerg] cannot load certificate "/etc/ssl/app/fullchain.pem"\nnginx: configuration file test failed',
    );
    t.regex((await host('web-3').locator('.host-problems').textContent()) ?? '', /^Serves an older certificate \(valid until \d{4}-\d\d-\d\d \d\d:\d\d UTC\)$/);
    t.is(await host('web-3').locator('code').getAttribute('title'), 'ab'.repeat(32));
    if (!removedOnce) {
      t.regex(
        (await host('web-4').locator('.host-problems').textContent()) ?? '',
        /^Silent since \d{4}-\d\d-\d\d \d\d:\d\d UTC: its check due .* UTC did not report$/,
      );
      await host('web-2').scrollIntoViewIfNeeded();
      await saveScreenshot(page, `certhub-panel-hosts-expanded-${screen}`);
      await assertAccessible(t, page, `${screen}: an expanded row's hosts`);

      // Cancel keeps the host; Remove forgets it, and the row and the list follow.
      await host('web-4').getByRole('button', { name: 'Remove host web-4 of app.example.test' }).click();
      const dialog = page.getByRole('dialog', { name: 'Remove host web-4?' });
      await dialog.waitFor();
      t.regex((await dialog.textContent()) ?? '', /a report from it later adds it again/);
      await saveScreenshot(page, `certhub-panel-hosts-remove-dialog-${screen}`);
      await assertAccessible(t, page, `${screen}: the dialog that removes a host`);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      t.is(await host('web-4').count(), 1);
      await host('web-4').getByRole('button', { name: 'Remove host web-4 of app.example.test' }).click();
      await dialog.getByRole('button', { name: 'Remove' }).click();
      await details.getByRole('status').filter({ hasText: 'Host web-4 removed.' }).waitFor();
      await host('web-4').waitFor({ state: 'detached' });
      await app.locator('.hosts-words', { hasText: /^2 of 3 stale$/ }).waitFor({ state: 'attached' });
      t.is(await details.locator('.hosts-summary').textContent(), '2 of 3 stale');
      await assertAccessible(t, page, `${screen}: a host removed`);
      removedOnce = true;
      const audit = (await (await server.admin('api/admin/audit?action=host.remove')).json()) as { entries: { domain: string; outcome: string; by: string }[] };
      t.deepEqual(
        audit.entries.map(({ domain, outcome }) => ({ domain, outcome })),
        [{ domain: 'app.example.test', outcome: 'ok' }],
      );
      t.regex(audit.entries[0]?.by ?? '', /^session:/, 'removed by the panel session');
    } else {
      await host('web-2').scrollIntoViewIfNeeded();
      await saveScreenshot(page, `certhub-panel-hosts-expanded-${screen}`);
      await assertAccessible(t, page, `${screen}: an expanded row's hosts`);
    }
    t.deepEqual(unexpected(problems), []);
  }
});

test('a report that changes a deployment updates the row and the expanded hosts live', async (t) => {
  const server = await demoCerthub(t);
  const shop = await addIssuedDomain(server, 'shop');
  const { page, problems } = await openPanel(t, server);
  const line = row(page, 'shop.example.test');
  t.is(await line.locator('.hosts-words').textContent(), '');
  const details = await expandRow(page, 'shop.example.test');
  t.is(await details.locator('.hosts-summary').textContent(), 'no host reports');
  const report: HostReport = {
    host_id: 'live-host-0123456789',
    host_name: 'edge-live',
    agent: 'proxy',
    agent_version: '1.4.0',
    serving: { sha256: await servedSha256(server, 'shop'), not_after: new Date(Date.now() + 80 * 24 * hour).toISOString() },
    reload: { ok: false, exit_code: null, output: ['1 of 1 front kept the previous certificate'] },
    next_check_at: new Date(Date.now() + hour).toISOString(),
  };
  await reportHost(server, shop, report);
  await line.locator('.hosts-words', { hasText: /^1 of 1 stale$/ }).waitFor();
  await details.locator('.host[data-state="stale"] .host-problems', { hasText: /^Reload failed$/ }).waitFor();
  await reportHost(server, shop, { ...report, reload: { ok: true, exit_code: null, output: [] } });
  await line.locator('.hosts-words', { hasText: /^1 host: all current$/ }).waitFor();
  await details.locator('.host[data-state="current"]').waitFor();
  t.is(await details.locator('.hosts-summary').textContent(), '1 host: all current');

  // Under the Stale hosts filter, a domain comes and goes as its hosts turn stale and current.
  await page.getByRole('button', { name: 'Stale hosts' }).click();
  await page.locator('#rows-empty', { hasText: 'No domain has a stale host.' }).waitFor();
  await reportHost(server, shop, { ...report, reload: { ok: false, exit_code: null, output: [] } });
  await line.waitFor();
  t.deepEqual(await shownNames(page), ['shop.example.test']);
  await reportHost(server, shop, { ...report, reload: { ok: true, exit_code: null, output: [] } });
  await line.waitFor({ state: 'detached' });
  t.is(await page.locator('#list-count').textContent(), '0 of 1 shown');
  t.deepEqual(unexpected(problems), []);
});
