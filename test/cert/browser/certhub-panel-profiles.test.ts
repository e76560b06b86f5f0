// The panel's ACME profiles, against a real certhub whose CA lists them (Pebble behind the profiles
// layer, test/cert/fixtures/acme/profiles-ca.ts): GET /api/admin/ca gives the directory's profiles;
// the add form offers them, and a domain added with one orders it; the expanded row shows the domain's
// profile and changes it (PATCH). A demo certhub, which has no CA, shows no profile field. Chromium.
import test from 'ava';
import { saveScreenshot } from '../../helpers/browser.js';
import { startCertStack, stopCertStack } from '../../helpers/cert-stack.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { powerdnsSection } from '../../helpers/certhub-domains.js';
import { addDomains, demoCerthub, domainView, expandRow, openPanel, row, unexpected } from '../helpers/certhub-panel.js';
import { letsEncryptProfiles, startProfilesCa } from '../fixtures/acme/profiles-ca.js';

test('the add form offers the CA profiles; the expanded row shows the domain profile and changes it', async (t) => {
  const stack = await startCertStack();
  try {
    const ca = await startProfilesCa(stack.pebble);
    t.teardown(() => ca.close());
    const dataDir = await certhubDataDir(t, {
      dns: powerdnsSection(stack.powerdns),
      acme: { directory_url: ca.directoryUrl, ca_bundle: stack.pebble.caFile, accept_terms: true, profile: 'tlsserver' },
      propagation: { nameservers: [stack.powerdns.nameserver], timeout_seconds: 30 },
    });
    const server = await startCerthub(t, dataDir, []);
    const answer = await server.admin('api/admin/ca');
    t.is(answer.status, 200);
    t.deepEqual(await answer.json(), {
      directory_url: ca.directoryUrl,
      profiles: Object.fromEntries(Object.entries(letsEncryptProfiles).map(([name, { description }]) => [name, description])),
      default_profile: 'tlsserver',
    });

    const { page, problems } = await openPanel(t, server);
    const select = page.getByLabel('Profile', { exact: true });
    await select.waitFor();
    t.deepEqual(await select.locator('option').allTextContents(), ['default (tlsserver)', 'classic', 'tlsserver', 'shortlived']);
    await page.getByLabel('Subdomain').fill('short');
    await page.getByLabel('Target').fill('203.0.113.60');
    await select.selectOption('shortlived');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await row(page, 'short.example.test').waitFor();
    t.is((await domainView(server, 'short')).profile, 'shortlived');
    t.is(await select.inputValue(), 'shortlived', 'the choice stays for the next add');

    await addDomains(server, [{ name: 'plain', target: '203.0.113.61' }]);
    const plain = await expandRow(page, 'plain.example.test');
    const rowSelect = plain.getByLabel('ACME profile of plain.example.test');
    t.is(await rowSelect.inputValue(), '', 'a domain without a profile of its own shows the default');
    const details = await expandRow(page, 'short.example.test');
    const shortSelect = details.getByLabel('ACME profile of short.example.test');
    t.is(await shortSelect.inputValue(), 'shortlived');
    const save = details.getByRole('button', { name: 'Save the profile of short.example.test' });
    t.false(await save.isVisible(), 'nothing to save until the choice changes');
    await shortSelect.selectOption('classic');
    await saveScreenshot(page, 'certhub-panel-profiles');
    await save.click();
    await save.waitFor({ state: 'hidden' });
    t.is((await domainView(server, 'short')).profile, 'classic');
    await shortSelect.selectOption('');
    await save.click();
    await save.waitFor({ state: 'hidden' });
    t.is((await domainView(server, 'short')).profile, null, 'back to the default');
    t.deepEqual(unexpected(problems), []);
  } finally {
    await stopCertStack(stack);
  }
});

test('a demo certhub has no CA: GET /api/admin/ca is all null, and the panel shows no profile field', async (t) => {
  const server = await demoCerthub(t);
  const answer = await server.admin('api/admin/ca');
  t.deepEqual(await answer.json(), { directory_url: null, profiles: null, default_profile: null });
  await addDomains(server, [{ name: 'demo', target: '203.0.113.62' }]);
  const { page, problems } = await openPanel(t, server);
  const details = await expandRow(page, 'demo.example.test');
  t.true(await page.locator('#add-profile-field').isHidden());
  t.is(await details.getByText('Profile', { exact: true }).count(), 1, 'the row holds the field');
  t.true(await details.getByText('Profile', { exact: true }).isHidden(), 'and hides it');
  t.deepEqual(unexpected(problems), []);
});
