// The proxy's certificate fetches and TLS connections on its /metrics: a proxy of
// `outpost run` fetching from a real `certhub run --demo` counts each route's fetches by outcome
// (fetched, unchanged, failed: a route whose token certhub refuses), and its TLS port counts the
// connections it accepted and the handshakes naming a server it has no certificate for.
import test from 'ava';
import { presentedCertificate, temporaryDir } from '../../helpers/agent-proxy.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addIssuedDomain } from '../../helpers/certhub-agent.js';
import { promtoolCheck, sampleValue } from '../../helpers/metrics-text.js';
import { outpostDir, pollText, startOutpost } from '../../helpers/outpost.js';

test('the proxy counts certificate fetches by domain and outcome, TLS connections and unserved names; promtool passes', async (t) => {
  const certhub = await startCerthub(t, await certhubDataDir(t));
  const { name, token } = await addIssuedDomain(certhub, 'app');
  const refused = 'gone.example.test';
  const dir = await outpostDir(t);
  const outpost = await startOutpost(
    t,
    dir,
    {
      roles: {
        proxy: {
          server: certhub.url,
          routes: { [name]: { backend: '127.0.0.1:9', token }, [refused]: { backend: '127.0.0.1:9', token: 'chd_not_a_token_certhub_knows_0123456789' } },
          host: '127.0.0.1',
          port: 0,
          material_dir: await temporaryDir(t, 'proxy-fetch-metrics-material-'),
          allow_untrusted: true,
          // One second between fetches: the second fetch of the route finds its material unchanged.
          fetch_interval_seconds: 1,
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
  const metrics = `${operations}metrics`;
  await pollText(metrics, (body) => sampleValue(body, 'outpost_proxy_certificate_swaps_total', { domain: name }) === 1);

  // certhub --demo issues from its own throwaway CA: each handshake presents a certificate.
  for (let index = 0; index < 3; index++) t.truthy((await presentedCertificate(tlsPort, name)).serialNumber);
  await t.throwsAsync(presentedCertificate(tlsPort, 'nowhere.example.test'));
  const text = await pollText(
    metrics,
    (body) =>
      (sampleValue(body, 'outpost_proxy_certificate_fetches_total', { domain: name, outcome: 'unchanged' }) ?? 0) >= 1 &&
      (sampleValue(body, 'outpost_proxy_certificate_fetches_total', { domain: refused, outcome: 'failed' }) ?? 0) >= 1 &&
      sampleValue(body, 'outpost_proxy_tls_unserved_names_total') === 1 &&
      sampleValue(body, 'outpost_proxy_tls_connections_open') === 0,
  );
  await promtoolCheck(t, dir, text);
  t.is(sampleValue(text, 'outpost_proxy_certificate_fetches_total', { domain: name, outcome: 'fetched' }), 1);
  t.is(sampleValue(text, 'outpost_proxy_certificate_fetches_total', { domain: name, outcome: 'failed' }), undefined);
  t.is(sampleValue(text, 'outpost_proxy_certificate_fetches_total', { domain: refused, outcome: 'fetched' }), undefined);
  t.not(sampleValue(text, 'outpost_proxy_certificate_fetches_total', { thread: 'proxy/cert-fetcher' }), undefined);
  // Three handshakes that completed and the one refused: four connections, none open now.
  t.is(sampleValue(text, 'outpost_proxy_tls_connections_total', { thread: 'proxy/proxy-front' }), 4);
});
