// The proxy role's operations listener (metrics_port): /healthz, /readyz and /metrics on plain HTTP
// beside the TLS port, with the proxy's own figures (answers by route and status class, backend
// failures, the time to the backend's answer, open WebSockets, the served certificates' expiry),
// checked by `promtool check metrics`, after real requests through the real proxy.
import { X509Certificate } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { WebSocket } from 'undici';
import { materialPaths } from '../../../actors/proxy/client/material-files.js';
import { bodyText, loopbackDispatcher, proxiedRequest, temporaryDir, writeTestMaterial } from '../../helpers/agent-proxy.js';
import { sampleValue } from '../../helpers/metrics-text.js';
import { outpostDir, pollText, startOutpost } from '../../helpers/outpost.js';
import { runToEnd } from '../../helpers/process.js';
import { startProxyBackend } from '../../helpers/proxy-backend.js';

test("the proxy serves /metrics, /healthz and /readyz on its metrics port, with its routes' figures, and promtool passes them", async (t) => {
  const materialDir = await temporaryDir(t, 'proxy-metrics-material-');
  await writeTestMaterial(materialDir, 'alpha.test', '0a');
  await writeTestMaterial(materialDir, 'beta.test', '0b');
  const [alpha, beta] = await Promise.all([startProxyBackend(t, 'alpha'), startProxyBackend(t, 'beta')]);
  const dir = await outpostDir(t);
  const outpost = await startOutpost(
    t,
    dir,
    {
      roles: {
        proxy: {
          server: 'https://certhub.example.test/',
          fetch: false,
          routes: { 'alpha.test': { backend: alpha.address, token: 'chd_test_token' }, 'beta.test': { backend: beta.address, token: 'chd_test_token' } },
          host: '127.0.0.1',
          port: 0,
          material_dir: materialDir,
          threads: 1,
          metrics_port: 0,
        },
      },
      supervisor: { metrics_interval_ms: 200 },
    },
    2,
  );
  const tlsPort = Number(new URL(outpost.urls.find((url) => url.startsWith('https:'))!).port);
  const operations = outpost.urls.find((url) => url.startsWith('http:'))!;
  t.is(new URL(operations).hostname, '127.0.0.1', 'the metrics listener is on loopback by default');

  const health = await fetch(`${operations}healthz`);
  t.is(health.status, 200);
  t.deepEqual(await health.json(), { status: 'ok' });
  await pollText(`${operations}readyz`, (text, status) => status === 200 && text === '{"status":"ready"}');

  for (let index = 0; index < 3; index++) {
    const ok = await proxiedRequest(tlsPort, 'alpha.test', { path: '/whoami' });
    t.is(ok.statusCode, 200);
    await bodyText(ok);
  }
  const misdirected = await proxiedRequest(tlsPort, 'alpha.test', { path: '/whoami', headers: { host: 'beta.test' } });
  t.is(misdirected.statusCode, 421);
  await bodyText(misdirected);
  beta.close();
  const down = await proxiedRequest(tlsPort, 'beta.test', { path: '/whoami' });
  t.is(down.statusCode, 502);
  await bodyText(down);

  const dispatcher = loopbackDispatcher(t);
  const socket = new WebSocket(`wss://alpha.test:${tlsPort}/echo`, { dispatcher });
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve());
    socket.addEventListener('error', () => reject(new Error('the WebSocket did not open')));
  });

  // The figures arrive with the front thread's next push: poll until every request is counted.
  const text = await pollText(
    `${operations}metrics`,
    (body) =>
      sampleValue(body, 'outpost_proxy_requests_total', { domain: 'alpha.test', status_class: '2xx' }) === 3 &&
      sampleValue(body, 'outpost_proxy_requests_total', { domain: 'beta.test', status_class: '5xx' }) === 1 &&
      sampleValue(body, 'outpost_proxy_websockets_open', { domain: 'alpha.test' }) === 1,
  );
  const file = join(dir, 'metrics.txt');
  await writeFile(file, text);
  const checked = await runToEnd('sh', ['-c', `promtool check metrics < ${file}`]);
  t.is(checked.code, 0, `${checked.stdout}${checked.stderr}`);

  t.is(sampleValue(text, 'outpost_proxy_requests_total', { domain: 'alpha.test', status_class: '4xx' }), 1, 'the 421 is counted');
  t.is(sampleValue(text, 'outpost_proxy_backend_errors_total', { domain: 'beta.test', kind: 'failed' }), 1);
  t.is(sampleValue(text, 'outpost_proxy_upstream_duration_seconds_count', { domain: 'alpha.test' }), 3);
  t.is(sampleValue(text, 'outpost_proxy_websockets_open', { domain: 'beta.test' }), 0);
  t.is(sampleValue(text, 'outpost_proxy_certificate_swaps_total', { domain: 'alpha.test' }), 1);
  const leaf = new X509Certificate(await readFile(materialPaths(materialDir, 'alpha.test').fullchain));
  t.is(sampleValue(text, 'outpost_certificate_expiry_timestamp_seconds', { domain: 'alpha.test', role: 'proxy' }), Date.parse(leaf.validTo) / 1000);
  t.not(sampleValue(text, 'outpost_thread_heap_used_bytes', { thread: 'proxy/proxy-front' }), undefined);

  socket.close(1000);
  await pollText(`${operations}metrics`, (body) => sampleValue(body, 'outpost_proxy_websockets_open', { domain: 'alpha.test' }) === 0);
});
