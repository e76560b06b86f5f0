// The panel's "Next attempt" row when a refusal said how long to wait: a CA that
// answers every newOrder 429 rateLimited with a Retry-After of 3 days (the replacement-CA layer in
// front of Pebble, test/cert/fixtures/acme/) puts the domain in error until then, and its expanded row says
// when and why, as the domain's view has it. Real certhub, PowerDNS and Pebble; Chromium.
import test from 'ava';
import type { Locator } from 'playwright-core';
import { saveScreenshot } from '../../helpers/browser.js';
import { startCertStack, stopCertStack } from '../../helpers/cert-stack.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { powerdnsSection } from '../../helpers/certhub-domains.js';
import { domainView, expandRow, openPanel, row, unexpected } from '../helpers/certhub-panel.js';
import { startReplacementCa, type ReplacementCa } from '../fixtures/acme/replacement-ca.js';

const retryAfterSeconds = 3 * 86_400;

test('a domain refused with a Retry-After of days shows "Next attempt: <that time>: the CA or DNS provider asked to wait (Retry-After)"', async (t) => {
  const stack = await startCertStack();
  let ca: ReplacementCa | undefined;
  try {
    ca = await startReplacementCa(stack.pebble);
    ca.refuseNewOrders = retryAfterSeconds;
    const dataDir = await certhubDataDir(t, {
      dns: powerdnsSection(stack.powerdns),
      acme: { directory_url: ca.directoryUrl, ca_bundle: stack.pebble.caFile, accept_terms: true },
      propagation: { nameservers: [stack.powerdns.nameserver], timeout_seconds: 30 },
    });
    const server = await startCerthub(t, dataDir, []);
    const { page, problems } = await openPanel(t, server);
    await page.getByLabel('Subdomain').fill('limited');
    await page.getByLabel('Target').fill('203.0.113.50');
    const refusedFrom = Date.now();
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await row(page, 'limited.example.test')
      .locator('.status', { hasText: /^error$/ })
      .waitFor({ timeout: 90_000 });

    const waiting = await domainView(server, 'limited');
    t.is(waiting.waiting_for, 'retry_after');
    t.regex(waiting.error ?? '', /the CA asks to retry after 259200 s/);
    const nextAt = Date.parse(waiting.next_attempt_at ?? '');
    t.true(
      nextAt >= refusedFrom + retryAfterSeconds * 1000,
      `the next attempt ${waiting.next_attempt_at ?? 'none'} is the CA's Retry-After away, not a backoff`,
    );

    const details = await expandRow(page, 'limited.example.test');
    const shownAt = `${new Date(nextAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
    t.is(await details.locator('.next-attempt').textContent(), `${shownAt}: the CA or DNS provider asked to wait (Retry-After)`);
    t.true(await details.getByText('Next attempt', { exact: true }).isVisible());
    // The target field and every fact's value start in one column, whatever the label's length.
    const leftEdge = async (locator: Locator) => Math.round((await locator.boundingBox())?.x ?? Number.NaN);
    const valueLefts = await Promise.all((await details.locator('.details-facts > div:not([hidden]) > dd').all()).map(leftEdge));
    t.true(valueLefts.length >= 3, `facts shown: ${valueLefts.length}`);
    const targetLeft = await leftEdge(details.locator('.target-form input'));
    t.deepEqual(new Set([targetLeft, ...valueLefts]).size, 1, `the target field starts at ${targetLeft} px, the facts' values at ${valueLefts.join(', ')} px`);
    await saveScreenshot(page, 'certhub-panel-next-attempt-retry-after');
    t.deepEqual(unexpected(problems), []);
  } finally {
    await ca?.close();
    await stopCertStack(stack);
  }
});
