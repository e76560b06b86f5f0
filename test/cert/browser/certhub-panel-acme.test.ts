// The certhub panel against the real stack (PowerDNS for records and challenges, Pebble as the CA):
// a domain added through the panel's form goes pending -> issuing -> issued on screen, pushed by the
// server, in the same document (no reload); a domain in error is retried from its row.
import test from 'ava';
import { stopCertStack, startCertStack } from '../../helpers/cert-stack.js';
import { startCerthubOnStack } from '../../helpers/certhub-domains.js';
import { saveScreenshot } from '../../helpers/browser.js';
import { domainView, expandRow, openPanel, row, unexpected } from '../helpers/certhub-panel.js';

/** Records every status the row of `name` shows, in order, from the moment it is drawn. */
const watchStatuses = (name: string) => `(() => {
  window.sameDocument = true;
  window.seenStatuses = [];
  const note = () => {
    const status = document.querySelector('.row[data-name="${name}"]')?.dataset.status;
    if (status !== undefined && window.seenStatuses.at(-1) !== status) window.seenStatuses.push(status);
  };
  new MutationObserver(note).observe(document.querySelector('#rows'), { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
})()`;

test('a domain added in the panel goes pending -> issuing -> issued on screen without a reload (Pebble + PowerDNS)', async (t) => {
  const stack = await startCertStack();
  try {
    const server = await startCerthubOnStack(t, stack);
    const { page, problems } = await openPanel(t, server);
    await page.evaluate(watchStatuses('app.example.test'));
    await page.getByLabel('Subdomain').fill('app');
    await page.getByLabel('Target').fill('203.0.113.5');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const app = row(page, 'app.example.test');
    await app.locator('.status', { hasText: /^(issued|error)$/ }).waitFor({ timeout: 90_000 });
    t.deepEqual(
      await page.evaluate<string[]>('window.seenStatuses'),
      ['pending', 'issuing', 'issued'],
      `the row showed each status: ${(await app.textContent()) ?? ''}`,
    );
    t.true(await page.evaluate<boolean>('window.sameDocument === true'), 'the page was not reloaded');
    t.regex((await app.locator('.row-expires').textContent()) ?? '', /^\d{4}-\d\d-\d\d$/);
    t.deepEqual(unexpected(problems), []);
  } finally {
    await stopCertStack(stack);
  }
});

test('a domain in error shows its reason and Retry now; with the CA back, Retry now issues it at once (Pebble + PowerDNS)', async (t) => {
  const stack = await startCertStack();
  try {
    const { pebble } = stack;
    const server = await startCerthubOnStack(t, stack);
    // Halted once the account is open, so that the order is what fails, not the account.
    await server.waitFor(/acme: account https:\/\/127\.0\.0\.1:\d+\/my-account\/\w+ at /, 60_000);
    await pebble.halt();
    const { page, problems } = await openPanel(t, server);
    await page.getByLabel('Subdomain').fill('again');
    await page.getByLabel('Target').fill('203.0.113.40');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const again = row(page, 'again.example.test');
    await again.locator('.status', { hasText: /^error$/ }).waitFor({ timeout: 60_000 });
    const details = await expandRow(page, 'again.example.test');
    t.regex((await details.locator('.details-error').textContent()) ?? '', /ECONNREFUSED/);
    const retry = details.getByRole('button', { name: 'Retry again.example.test now' });
    // When the next attempt comes and why, in words, as the domain's view says.
    const waiting = await domainView(server, 'again');
    t.is(waiting.waiting_for, 'backoff');
    const shownAt = `${(waiting.next_attempt_at ?? '').slice(0, 16).replace('T', ' ')} UTC`;
    t.regex((await details.textContent()) ?? '', new RegExp(`Next attempt${shownAt}: backoff after the failure`));
    await saveScreenshot(page, 'certhub-panel-retry-error');
    t.true(await retry.isVisible());

    await pebble.start();
    const { next_attempt_at: plannedRetry } = await domainView(server, 'again');
    await retry.click();
    await again.locator('.status', { hasText: /^issued$/ }).waitFor({ timeout: 60_000 });
    t.true(Date.now() < Date.parse(plannedRetry ?? ''), 'issued before the retry the backoff had planned');
    // The open row reads the domain again after the event that drew the row issued.
    await retry.waitFor({ state: 'hidden' });
    t.false(await details.locator('.details-error').isVisible(), 'no error once issued');
    t.regex(server.stderr(), /retrying again\.example\.test now, as the operator asked/);
    await saveScreenshot(page, 'certhub-panel-retry-issued');
    t.deepEqual(unexpected(problems), []);
  } finally {
    await stopCertStack(stack);
  }
});
