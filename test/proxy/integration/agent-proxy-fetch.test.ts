// certhub-agent proxy fetching its routes' material from a real `certhub run --demo`: what it logs
// when certhub goes away and comes back.
import test from 'ava';
import { startAgentProxy, temporaryDir } from '../../helpers/agent-proxy.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addIssuedDomain } from '../../helpers/certhub-agent.js';
import { startTcpRelay } from '../helpers/tcp-relay.js';

/** A TCP relay to `port` that can be told to drop every connection, as a certhub that is away would. */
test('after certhub is back, the proxy logs that fetching recovered', async (t) => {
  const certhub = await startCerthub(t, await certhubDataDir(t));
  const { name, token } = await addIssuedDomain(certhub, 'app');
  const relay = await startTcpRelay(t, Number(new URL(certhub.url).port));
  const proxy = await startAgentProxy(t, {
    server: relay.url,
    routes: { [name]: { backend: '127.0.0.1:9', token } },
    host: '127.0.0.1',
    port: 0,
    material_dir: await temporaryDir(t, 'agent-proxy-material-'),
    allow_untrusted: true,
    // Failures are retried within the interval: one second keeps the test short.
    fetch_interval_seconds: 1,
  });
  await proxy.process.waitFor(/fetch: new material for app\.example\.test/, 30_000);

  relay.setUp(false);
  await proxy.process.waitFor(/fetch: app\.example\.test: .*\(failure 2\)/, 30_000);
  t.notRegex(proxy.process.stdout() + proxy.process.stderr(), /recovered/);

  relay.setUp(true);
  const [line] = await proxy.process.waitFor(/^.*fetch: app\.example\.test: recovered, .* answers again after \d+ failed fetch(es)?.*$/m, 30_000);
  t.true(line.includes(`${new URL(relay.url).origin} answers again`), line);
});
