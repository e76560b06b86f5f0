// certhub-agent proxy keeps every handshake through certificate swaps: clients open TLS connections
// in a tight loop (each a request of its own) while the route's material is replaced 50 times and
// each front thread takes the new certificate. A swap that closed a listen socket reset the
// connections waiting in its accept queue; not one may fail.
import { request } from 'node:https';
import test from 'ava';
import { presentedCertificate, startProxyTo, writeTestMaterial } from '../../helpers/agent-proxy.js';
import { startProxyBackend } from '../../helpers/proxy-backend.js';

const swaps = 50;
/** Connections in flight at once, each on a connection of its own. */
const parallel = 4;

/** A GET on a fresh TLS connection: its status, or what went wrong. */
function freshGet(port: number): Promise<string> {
  return new Promise((resolve) => {
    const outgoing = request(
      { host: '127.0.0.1', port, servername: 'app.test', rejectUnauthorized: false, agent: false, path: '/whoami', headers: { host: 'app.test' } },
      (response) => {
        response.resume();
        response.once('end', () => resolve(String(response.statusCode)));
      },
    );
    outgoing.once('error', (error) => resolve(error.message));
    outgoing.end();
  });
}

test(`TLS connections opened in a tight loop through ${swaps} certificate swaps: every one is answered`, async (t) => {
  const backend = await startProxyBackend(t, 'app');
  const proxy = await startProxyTo(t, backend.address, { threads: 2, material_check_ms: 20, backend_connections: 8 });
  const outcomes = new Map<string, number>();
  let swapping = true;
  const hammer = async () => {
    while (swapping) {
      const outcome = await freshGet(proxy.port);
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
  };
  const clients = Array.from({ length: parallel }, hammer);
  for (let swap = 1; swap <= swaps; swap++) {
    const serial = (0x100 + swap).toString(16);
    await writeTestMaterial(proxy.materialDir, 'app.test', serial);
    // Both threads serve it once three handshakes in a row present it (each lands on either thread).
    for (let inARow = 0; inARow < 3; ) {
      const presented = await presentedCertificate(proxy.port, 'app.test');
      inARow = presented.serialNumber.toLowerCase().replace(/^0+/, '') === serial ? inARow + 1 : 0;
    }
  }
  swapping = false;
  await Promise.all(clients);
  t.log(`${[...outcomes.values()].reduce((sum, count) => sum + count, 0)} requests: ${JSON.stringify(Object.fromEntries(outcomes))}`);
  t.deepEqual([...outcomes.keys()], ['200']);
});
