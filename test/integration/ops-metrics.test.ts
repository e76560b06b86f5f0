// /metrics, /healthz and /readyz on real fronts of `outpost run`: the text passes `promtool check
// metrics`, a real Prometheus scrapes it and answers PromQL over the scraped series, and certhub's
// /metrics is read with the admin key or the metrics token only, wrong tokens limited and logged like wrong keys.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { certhubDataDir, startCerthub, testAdminKey } from '../helpers/certhub.js';
import { sampleValue } from '../helpers/metrics-text.js';
import { outpostDir, pollText, startOutpost } from '../helpers/outpost.js';
import { runToEnd } from '../helpers/process.js';
import { startPrometheus, waitForQuery } from '../helpers/prometheus.js';

const recvHost = (intervalMs: number) => ({
  roles: {
    recv: { server: { listen: '127.0.0.1:0', loopback: true, accept_demo: true, max_entries: 1000 } },
    send: { anu: { demo: { enabled: true, values: 64, interval_seconds: 1 } }, diode: { loopback: true } },
  },
  supervisor: { metrics_interval_ms: intervalMs },
});

test("a front answers /healthz and /readyz, and its /metrics passes promtool with every thread's figures", async (t) => {
  const dir = await outpostDir(t);
  const outpost = await startOutpost(t, dir, recvHost(200));
  const url = outpost.urls[0]!;
  const health = await fetch(`${url}healthz`);
  t.is(health.status, 200);
  t.deepEqual(await health.json(), { status: 'ok' });
  await pollText(`${url}readyz`, (text, status) => status === 200 && text === '{"status":"ready"}');
  for (let index = 0; index < 3; index++) await pollText(`${url}api/random`, (_text, status) => status === 200);
  await fetch(`${url}no/such/path`);
  // The figures arrive with each thread's next push (the front's and the pool's apart): poll until
  // every request is counted by both.
  const text = await pollText(
    `${url}metrics`,
    (body) =>
      (sampleValue(body, 'outpost_http_requests_total', { route: '/api/random', status: '200' }) ?? 0) >= 3 &&
      sampleValue(body, 'outpost_http_requests_total', { route: '(unmatched)', status: '404' }) === 1 &&
      (sampleValue(body, 'outpost_pool_served_total') ?? 0) >= 3,
  );
  const file = join(dir, 'metrics.txt');
  await writeFile(file, text);
  const checked = await runToEnd('sh', ['-c', `promtool check metrics < ${file}`]);
  t.is(checked.code, 0, `${checked.stdout}${checked.stderr}`);
  t.is(sampleValue(text, 'outpost_http_requests_total', { route: '(unmatched)', status: '404' }), 1);
  t.is(sampleValue(text, 'outpost_pool_capacity'), 1000);
  t.true((sampleValue(text, 'outpost_pool_served_total') ?? 0) >= 3);
  t.true((sampleValue(text, 'outpost_http_request_duration_seconds_count', { route: '/api/random' }) ?? 0) >= 3);
  for (const thread of ['recv/pool', 'recv/diode-receiver', 'recv/http-front'])
    t.not(sampleValue(text, 'outpost_thread_heap_used_bytes', { thread }), undefined, thread);
  t.is(sampleValue(text, 'outpost_actor_restarts_total', { actor: 'recv/pool' }), 0);
  t.true((sampleValue(text, 'process_resident_memory_bytes') ?? 0) > 0);
  // Each front serves its own role's figures only.
  t.false(text.includes('role="send"'));
});

test('a real Prometheus scrapes a front and answers PromQL over the series', async (t) => {
  const dir = await outpostDir(t);
  const outpost = await startOutpost(t, dir, recvHost(200));
  const target = new URL(outpost.urls[0]!).host;
  const prometheusDir = join(dir, 'prometheus');
  await mkdir(prometheusDir);
  const prometheus = await startPrometheus(
    t,
    prometheusDir,
    `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: outpost\n    static_configs:\n      - targets: ['${target}']\n`,
  );
  for (let index = 0; index < 5; index++) await pollText(`${outpost.urls[0]!}api/random`, (_text, status) => status === 200);
  const capacity = await waitForQuery(prometheus, 'outpost_pool_capacity{job="outpost"}', (samples) => samples.length === 1);
  t.is(capacity[0]!.value[1], '1000');
  const served = await waitForQuery(
    prometheus,
    'sum(outpost_http_requests_total{route="/api/random",status="200"})',
    (samples) => Number(samples[0]?.value[1] ?? 0) >= 5,
  );
  t.true(Number(served[0]!.value[1]) >= 5);
  const up = await waitForQuery(prometheus, 'up{job="outpost"}', (samples) => samples[0]?.value[1] === '1');
  t.is(up.length, 1);
});

test("certhub's /metrics needs the admin key or the metrics token, and gives each certificate's expiry", async (t) => {
  const metricsToken = 'metrics-token-0123456789abcdef';
  const dataDir = await certhubDataDir(t, { metrics_token: metricsToken });
  const certhub = await startCerthub(t, dataDir);
  const without = await fetch(`${certhub.url}metrics`);
  t.is(without.status, 401);
  t.truthy(((await without.json()) as { error: string }).error);
  t.is((await fetch(`${certhub.url}metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status, 401);
  for (const token of [testAdminKey, metricsToken]) {
    const text = await pollText(`${certhub.url}metrics`, (body, status) => status === 200 && body.includes('outpost_actor_up'), 20_000, {
      headers: { authorization: `Bearer ${token}` },
    });
    t.not(sampleValue(text, 'outpost_actor_up', { actor: 'cert/http-front' }), undefined);
  }
  t.is((await certhub.admin('api/admin/domains', { method: 'POST', body: { name: 'app', target: '203.0.113.5' } })).status, 201);
  const issued = await pollText(
    `${certhub.url}metrics`,
    (body) => sampleValue(body, 'outpost_certificate_expiry_timestamp_seconds', { domain: 'app.example.test' }) !== undefined,
    30_000,
    {
      headers: { authorization: `Bearer ${metricsToken}` },
    },
  );
  const expiresAt = sampleValue(issued, 'outpost_certificate_expiry_timestamp_seconds', { domain: 'app.example.test' })! * 1000;
  const domain = (await (await certhub.admin('api/admin/domains/app')).json()) as { expires_at: string };
  t.is(expiresAt, Date.parse(domain.expires_at));
  t.is(sampleValue(issued, 'outpost_cert_domains', { status: 'issued' }), 1);
  // Fetches by domain and outcome; a refused token under no domain, whatever name it asked for.
  const { token } = (await (await certhub.admin('api/admin/domains/app')).json()) as { token: string };
  t.is((await fetch(`${certhub.url}api/cert/app`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
  t.is((await fetch(`${certhub.url}api/cert/app`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
  t.is((await fetch(`${certhub.url}api/cert/made-up-name`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status, 401);
  const fetched = await pollText(
    `${certhub.url}metrics`,
    (body) => sampleValue(body, 'outpost_cert_fetches_total', { domain: 'app.example.test', outcome: 'served' }) === 2,
    30_000,
    {
      headers: { authorization: `Bearer ${metricsToken}` },
    },
  );
  t.is(sampleValue(fetched, 'outpost_cert_fetches_total', { domain: '', outcome: 'refused' }), 1);
  t.false(fetched.includes('made-up-name'), 'a name a client made up is no series');
  // The health routes stay open: a load balancer carries no token.
  t.is((await fetch(`${certhub.url}healthz`)).status, 200);
});

test("certhub's /metrics: a wrong token is a logged failure (never the token); out of allowance a client is refused 429 without its token being checked", async (t) => {
  const metricsToken = 'metrics-token-0123456789abcdef';
  const certhub = await startCerthub(t, await certhubDataDir(t, { metrics_token: metricsToken, trusted_proxies: ['127.0.0.1'] }));
  const read = (token: string, client: string) => fetch(`${certhub.url}metrics`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': client } });
  const wrongToken = 'metrics-guess-that-must-never-be-logged';
  const statuses = [];
  for (let index = 0; index < 11; index++) statuses.push((await read(wrongToken, '203.0.113.9')).status);
  t.deepEqual(statuses, [...Array<number>(10).fill(401), 429]);
  const refused = await read(metricsToken, '203.0.113.9');
  t.is(refused.status, 429, 'out of allowance, even the right token is not checked');
  t.regex(refused.headers.get('retry-after') ?? '', /^\d+$/);
  t.regex(((await refused.json()) as { error: string }).error, /^too many requests; retry in \d+ s$/);
  t.is((await read(metricsToken, '203.0.113.10')).status, 200, 'another client has its own allowance');

  // Front threads log through the supervisor's thread, so a line can reach stdout after the answer did.
  await certhub.waitFor(/certhub: client out of its allowance of failed metrics reads client=203\.0\.113\.9 retry_in_s=\d+\n/);
  const log = certhub.stdout() + certhub.stderr();
  t.is(log.split('\n').filter((line) => line.endsWith('certhub: failed metrics read client=203.0.113.9')).length, 10, 'one line for each token checked');
  t.false(log.includes(wrongToken) || log.includes(metricsToken), 'no token in the log');
});
