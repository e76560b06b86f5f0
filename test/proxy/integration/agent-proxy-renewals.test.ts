// Renewals on a live proxy with clients that keep their connections: uWS swaps a name's certificate
// only by removing the name, which deletes the router that connections made under the old
// certificate still use. A kept-alive client's next request would then read freed memory and end the
// proxy (`trap stack segment` in uws_linux_x64_115.node). So each renewal builds a new app behind the
// thread's one acceptor, and the old app serves its connections until they end
// (actors/proxy/proxy-front/tls-listener.ts).
import { readdirSync } from 'node:fs';
import { Agent } from 'node:https';
import test from 'ava';
import { keptAliveGet, presentedCertificate, startOneRouteProxy, writeTestMaterial } from '../../helpers/agent-proxy.js';
import { eventually } from '../../helpers/fixture-host.js';
import { listeningSockets } from '../../helpers/listening-sockets.js';

/** Renewals, each with a kept-alive client made under it. */
const renewals = 24;

test('24 renewals with a kept-alive client under each certificate: every client is answered on its own certificate after every renewal, new handshakes get the newest, and one socket per thread listens', async (t) => {
  t.timeout(5 * 60_000);
  const serial = (index: number) => (index + 16).toString(16).toUpperCase().padStart(2, '0');
  const threads = 2;
  const { proxy, materialDir } = await startOneRouteProxy(t, serial(0), 100);
  const pid = proxy.process.child.pid ?? 0;
  const openFiles = () => readdirSync(`/proc/${pid}/fd`).length;
  const filesAtStart = openFiles();

  const clients: { agent: Agent; serialNumber: string; localPort: number | undefined }[] = [];
  t.teardown(() => clients.forEach(({ agent }) => agent.destroy()));
  for (let renewal = 0; renewal <= renewals; renewal++) {
    if (renewal > 0) {
      await writeTestMaterial(materialDir, 'alpha.test', serial(renewal));
      // Both front threads say so: /(renewed certificate served[^\n]*serial=XX[\s\S]*){2}/.
      await proxy.process.waitFor(new RegExp(`(renewed certificate served[^\\n]*serial=${serial(renewal)}\\b[\\s\\S]*){${threads}}`), 30_000);
    }
    // A new client, made under this certificate, kept alive from now on.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const first = await keptAliveGet(agent, proxy.port, 'alpha.test');
    t.is(first.status, 200);
    t.is(first.serialNumber, serial(renewal), `a new connection after renewal ${renewal} gets its certificate`);
    clients.push({ agent, serialNumber: first.serialNumber, localPort: first.localPort });
    // Every client from before goes on, on its own connection and certificate.
    for (const client of clients) {
      const seen = await keptAliveGet(client.agent, proxy.port, 'alpha.test');
      t.deepEqual(seen, { status: 200, localPort: client.localPort, serialNumber: client.serialNumber }, `after renewal ${renewal}`);
    }
  }
  t.is(listeningSockets(proxy.port).length, threads, 'one listening socket per front thread, however many renewals');

  // The clients leave: the proxy lets their connections go.
  clients.forEach(({ agent }) => agent.destroy());
  const settled = await eventually(() => Promise.resolve(openFiles() <= filesAtStart + 2), 20_000, 200);
  t.true(settled, `the proxy holds ${openFiles()} files, ${filesAtStart} at the start`);
  t.is((await presentedCertificate(proxy.port, 'alpha.test')).serialNumber, serial(renewals));
  proxy.process.child.kill('SIGTERM');
  t.is(await proxy.process.exited, 0, proxy.process.stderr());
});
