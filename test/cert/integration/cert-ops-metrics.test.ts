// certhub's ACME and DNS figures on /metrics against the real stack (Pebble as the CA, PowerDNS for
// the records and challenges): orders by outcome with their duration, DNS provider calls by provider,
// operation and outcome, the certificate budget; and /readyz following the ACME account (not ready
// while the CA cannot be reached at start).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { startCertStack, stopCertStack, withPowerDns } from '../../helpers/cert-stack.js';
import { reservePort } from '../../../src/http/port.js';
import { certhubDataDir, startCerthub, testAdminKey } from '../../helpers/certhub.js';
import { addDomain, startCerthubOnStack, waitForDomain } from '../../helpers/certhub-domains.js';
import { sampleValue } from '../../helpers/metrics-text.js';
import { pollText } from '../../helpers/outpost.js';
import { runToEnd } from '../../helpers/process.js';

const withAdminKey = { headers: { authorization: `Bearer ${testAdminKey}` } };

test('an issued domain shows in the ACME, DNS and budget figures, which promtool passes; /readyz is ready once the account is open', async (t) => {
  const stack = await startCertStack();
  try {
    const server = await startCerthubOnStack(t, stack);
    await pollText(`${server.url}readyz`, (text, status) => status === 200 && text === '{"status":"ready"}', 30_000);
    await addDomain(server, 'app', '203.0.113.5');
    const domain = await waitForDomain(server, 'app', (view) => view.status === 'issued' || view.status === 'error', 60_000);
    t.is(domain.status, 'issued', domain.error ?? '');

    // The figures arrive with each thread's next push (every 5 s by default), and the three threads
    // that count these push apart: the wait is for one figure of each (acme, dns, domains).
    const text = await pollText(
      `${server.url}metrics`,
      (body, status) =>
        status === 200 &&
        sampleValue(body, 'outpost_acme_orders_total', { outcome: 'issued' }) === 1 &&
        sampleValue(body, 'outpost_dns_provider_calls_total', { operation: 'remove_txt', outcome: 'ok' }) !== undefined &&
        sampleValue(body, 'outpost_cert_budget_used') === 1,
      30_000,
      withAdminKey,
    );
    const file = join(server.dataDir, 'metrics.txt');
    await writeFile(file, text);
    const checked = await runToEnd('sh', ['-c', `promtool check metrics < ${file}`]);
    t.is(checked.code, 0, `${checked.stdout}${checked.stderr}`);

    t.is(sampleValue(text, 'outpost_acme_order_duration_seconds_count', { outcome: 'issued' }), 1);
    t.true((sampleValue(text, 'outpost_acme_order_duration_seconds_sum', { outcome: 'issued' }) ?? 0) > 0);
    t.is(sampleValue(text, 'outpost_acme_orders_total', { outcome: 'failed' }), undefined);
    t.is(sampleValue(text, 'outpost_acme_account_ready'), 1);
    for (const operation of ['set_address', 'add_txt', 'remove_txt']) {
      t.true((sampleValue(text, 'outpost_dns_provider_calls_total', { provider: 'powerdns', operation, outcome: 'ok' }) ?? 0) >= 1, operation);
      t.true((sampleValue(text, 'outpost_dns_provider_call_duration_seconds_count', { provider: 'powerdns', operation }) ?? 0) >= 1, operation);
    }
    t.is(sampleValue(text, 'outpost_dns_provider_calls_total', { outcome: 'error' }), undefined);
    t.is(sampleValue(text, 'outpost_cert_budget_certificates'), 50);
    t.is(sampleValue(text, 'outpost_cert_budget_used'), 1);
    t.true((sampleValue(text, 'outpost_cert_budget_next_slot_timestamp_seconds') ?? Infinity) <= Date.now() / 1000 + 1, 'a slot is free now');
  } finally {
    await stopCertStack(stack);
  }
});

test('with the CA unreachable at start, /readyz is 503 naming the ACME account, and the account gauge is 0', withPowerDns, async (t, powerdns) => {
  const directoryUrl = `https://127.0.0.1:${await reservePort('127.0.0.1')}/dir`;
  const dataDir = await certhubDataDir(t, {
    dns: { provider: 'powerdns', server_url: powerdns.apiUrl, api_token: powerdns.apiKey, zone: powerdns.zone },
    acme: { directory_url: directoryUrl },
  });
  const server = await startCerthub(t, dataDir, []);
  const answer = await pollText(`${server.url}readyz`, (text, status) => status === 503 && text.includes('ACME account is not open'), 30_000);
  const body = JSON.parse(answer) as { error: string; reasons: string[] };
  t.regex(body.error, /^not ready: /);
  t.true(
    body.reasons.some((reason) => reason.startsWith('cert/acme: the ACME account is not open at https://127.0.0.1:') && reason.includes('/dir')),
    body.reasons.join('\n'),
  );
  t.is((await fetch(`${server.url}healthz`)).status, 200, 'alive all the same');
  const text = await pollText(
    `${server.url}metrics`,
    (metrics, status) => status === 200 && metrics.includes('outpost_acme_account_ready'),
    30_000,
    withAdminKey,
  );
  t.is(sampleValue(text, 'outpost_acme_account_ready'), 0);
});
