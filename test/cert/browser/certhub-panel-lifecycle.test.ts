// Renew now, Re-key and Revoke in the panel, against a real certhub ordering from Pebble through
// PowerDNS: the expanded row names the CA that issued the certificate; each action asks first in a dialog (Cancel changes nothing), Revoke asks for an RFC 5280 reason
// and shows the CA's answer, and each action is in certhub's log. Chromium.
import { X509Certificate } from 'node:crypto';
import test from 'ava';
import { assertAccessible } from '../../helpers/accessibility.js';
import { saveScreenshot } from '../../helpers/browser.js';
import { startCertStack, stopCertStack } from '../../helpers/cert-stack.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { powerdnsSection } from '../../helpers/certhub-domains.js';
import { addDomains, domainView, expandRow, openPanel, row, unexpected } from '../helpers/certhub-panel.js';

async function servedSerial(admin: (path: string) => Promise<Response>, name: string): Promise<string> {
  return new X509Certificate(await (await admin(`api/admin/domains/${name}/cert.crt`)).text()).serialNumber;
}

test('the expanded row names the issuing CA; Renew now, Re-key and Revoke each ask in a dialog, run, and are logged; Revoke shows the CA answer', async (t) => {
  const stack = await startCertStack();
  try {
    const dataDir = await certhubDataDir(t, {
      dns: powerdnsSection(stack.powerdns),
      acme: { directory_url: stack.pebble.directoryUrl, ca_bundle: stack.pebble.caFile, accept_terms: true, retry_backoff_seconds: 1 },
      propagation: { nameservers: [stack.powerdns.nameserver], timeout_seconds: 30 },
    });
    const server = await startCerthub(t, dataDir, []);
    const name = 'life.example.test';
    await addDomains(server, [{ name: 'life', target: '203.0.113.60' }]);
    const { page, problems } = await openPanel(t, server);
    const status = (text: string) => row(page, name).locator('.status', { hasText: new RegExp(`^${text}$`) });
    await status('issued').waitFor({ timeout: 90_000 });
    const details = await expandRow(page, name);
    // Pebble's directory is named by its host: it is none of the CAs certhub knows by name.
    const issuer = details.locator('dt', { hasText: /^Issued by$/ }).locator('xpath=following-sibling::dd[1]');
    await issuer.filter({ hasText: new URL(stack.pebble.directoryUrl).host }).waitFor();
    t.is(await issuer.getAttribute('title'), stack.pebble.directoryUrl);
    await saveScreenshot(page, 'certhub-panel-issued-by');
    await assertAccessible(t, page, 'an expanded row naming the CA that issued its certificate');
    const admin = (path: string) => server.admin(path);
    const first = await servedSerial(admin, name);

    // Cancel leaves everything as it was.
    await details.getByRole('button', { name: `Renew now ${name}` }).click();
    const dialog = page.getByRole('dialog', { name: `Renew now: ${name}?` });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    t.is((await domainView(server, 'life')).status, 'issued');

    const renewedFrom = async (before: string) => {
      await status('issued').waitFor({ timeout: 90_000 });
      for (let tries = 0; tries < 900; tries++) {
        const serial = await servedSerial(admin, name);
        if (serial !== before) return serial;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`no new certificate after ${before}`);
    };
    await details.getByRole('button', { name: `Renew now ${name}` }).click();
    await page
      .getByRole('dialog', { name: `Renew now: ${name}?` })
      .getByRole('button', { name: 'Renew now' })
      .click();
    await details.getByRole('status').filter({ hasText: 'Renewal started.' }).waitFor();
    const second = await renewedFrom(first);

    await details.getByRole('button', { name: `Re-key ${name}` }).click();
    await page
      .getByRole('dialog', { name: `Re-key: ${name}?` })
      .getByRole('button', { name: 'Re-key' })
      .click();
    const third = await renewedFrom(second);

    await details.getByRole('button', { name: `Revoke the certificate ${name}` }).click();
    const revokeDialog = page.getByRole('dialog', { name: `Revoke the certificate: ${name}?` });
    await revokeDialog.getByLabel('Reason (RFC 5280)').selectOption('keyCompromise');
    await saveScreenshot(page, 'certhub-panel-revoke-dialog');
    await revokeDialog.getByRole('button', { name: 'Revoke' }).click();
    const said = details.getByRole('status').filter({ hasText: /^The CA answered: / });
    await said.waitFor();
    t.regex((await said.textContent()) ?? '', /revoked the certificate \(reason keyCompromise, code 1\)/);
    await saveScreenshot(page, 'certhub-panel-revoked');
    await renewedFrom(third);

    const log = server.stdout() + server.stderr();
    t.regex(log, /renewing life\.example\.test now, as the operator asked/);
    t.regex(log, /re-keying life\.example\.test now, as the operator asked/);
    t.regex(log, /revoked the certificate of life\.example\.test \(reason keyCompromise\), as the operator asked/);
    t.deepEqual(unexpected(problems), []);
  } finally {
    await stopCertStack(stack);
  }
});
