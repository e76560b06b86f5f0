// The panel's edit path over records certhub did not create: a target change refused
// with 409 naming them shows the refusal and "Take them over and save", which sends the same change
// with "adopt": true. Real certhub, PowerDNS and Pebble; Chromium.
import test from 'ava';
import { saveScreenshot } from '../../helpers/browser.js';
import { startCertStack, stopCertStack } from '../../helpers/cert-stack.js';
import { addDomain, settled, startCerthubOnStack, waitForDomain } from '../../helpers/certhub-domains.js';
import { eventually } from '../../helpers/fixture-host.js';
import { domainView, expandRow, openPanel, unexpected } from '../helpers/certhub-panel.js';

test('a target change refused over a record someone else made offers "Take them over and save", which saves it with adopt', async (t) => {
  const stack = await startCertStack();
  try {
    const { powerdns } = stack;
    const server = await startCerthubOnStack(t, stack);
    await addDomain(server, 'shop', '203.0.113.60');
    t.is((await waitForDomain(server, 'shop', settled, 90_000)).status, 'issued');
    const name = `shop.${powerdns.zone}`;
    // An AAAA beside certhub's A, made by hand through the PowerDNS API: no certhub mark.
    const made = await fetch(`${powerdns.apiUrl}/api/v1/servers/localhost/zones/${powerdns.zone}.`, {
      method: 'PATCH',
      headers: { 'X-API-Key': powerdns.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        rrsets: [{ name: `${name}.`, type: 'AAAA', ttl: 60, changetype: 'REPLACE', records: [{ content: '2001:db8::60', disabled: false }] }],
      }),
    });
    t.is(made.status, 204);

    const { page, problems } = await openPanel(t, server);
    const details = await expandRow(page, name);
    const adopt = details.getByRole('button', { name: 'Take them over and save' });
    t.false(await adopt.isVisible(), 'not offered before a refusal');
    await details.getByLabel('Target').fill('203.0.113.61');
    await details.getByRole('button', { name: 'Save', exact: true }).click();
    await adopt.waitFor();
    t.regex(
      (await details.locator('.target-form .hint').textContent()) ?? '',
      /shop\.example\.test already has address records certhub did not create \(AAAA 2001:db8::60\)/,
    );
    t.is((await domainView(server, 'shop')).target, '203.0.113.60', 'the refused change changed nothing');
    await saveScreenshot(page, 'certhub-panel-adopt-offered');

    await adopt.click();
    await adopt.waitFor({ state: 'hidden' });
    t.true(await eventually(async () => (await domainView(server, 'shop')).target === '203.0.113.61', 30_000, 100), 'saved with adopt');
    t.true(
      await eventually(
        async () => JSON.stringify(await powerdns.dig(name, 'A')) === '["203.0.113.61"]' && (await powerdns.dig(name, 'AAAA')).length === 0,
        30_000,
        100,
      ),
      "the adopted AAAA went with certhub's new A",
    );
    // No refusal left under the field: the save says it saved.
    await details.locator('.target-form .hint.saved', { hasText: 'Saved: A record to 203.0.113.61.' }).waitFor();
    t.deepEqual(unexpected(problems, [409]), []);
  } finally {
    await stopCertStack(stack);
  }
});
