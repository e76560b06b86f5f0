// SIGHUP makes certhub-agent proxy read its config again and serve the new routes without dropping a
// connection: a kept-alive connection takes a route's new backend at its next request, a WebSocket and
// a download of a removed route run to their end, a new route is served at the next handshake, a
// removed one is refused there; a config that fails its check is refused with every problem and
// the running routes stay.
import { createHash, X509Certificate } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { Agent as HttpsAgent, request } from 'node:https';
import test from 'ava';
import { WebSocket } from 'undici';
import { materialPaths } from '../../../actors/proxy/client/material-files.js';
import {
  curlResolve,
  presentedCertificate,
  proxiedRequest,
  loopbackDispatcher,
  startAgentProxy,
  temporaryDir,
  writeTestMaterial,
} from '../../helpers/agent-proxy.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addIssuedDomain } from '../../helpers/certhub-agent.js';
import { downloadDigest, startProxyBackend } from '../../helpers/proxy-backend.js';
import { routeToken, startTwoRouteProxy } from '../../helpers/two-route-proxy.js';

const downloadBytes = 64 * 1024 * 1024;

/** GET /whoami for alpha.test on `agent`'s one kept-alive connection: which backend answered, on which local port. */
function whoamiOn(agent: HttpsAgent, port: number): Promise<{ name: string; localPort: number | undefined }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: '127.0.0.1', port, servername: 'alpha.test', rejectUnauthorized: false, agent, path: '/whoami', headers: { host: 'alpha.test' } },
      (response) => {
        const localPort = response.socket.localPort;
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.once('end', () => resolve({ name: (JSON.parse(text) as { name: string }).name, localPort }));
      },
    );
    outgoing.once('error', reject);
    outgoing.end();
  });
}

test('SIGHUP serves new routes without dropping a connection, and refuses a bad config keeping the running routes', async (t) => {
  const { proxy, materialDir, alpha, beta } = await startTwoRouteProxy(t, { config: { threads: 2 } });
  const pid = proxy.process.child.pid!;
  const [gamma, delta] = await Promise.all([startProxyBackend(t, 'gamma'), startProxyBackend(t, 'delta')]);
  await writeTestMaterial(materialDir, 'delta.test', '0d');

  // Open before the reload: a kept-alive connection, a WebSocket on alpha, a download on beta part read.
  const agent = new HttpsAgent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  const before = await whoamiOn(agent, proxy.port);
  t.is(before.name, 'alpha');
  const dispatcher = loopbackDispatcher(t);
  const socket = new WebSocket(`wss://alpha.test:${proxy.port}/echo`, { dispatcher });
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve());
    socket.addEventListener('error', () => reject(new Error('the WebSocket did not open')));
  });
  const download = await proxiedRequest(proxy.port, 'beta.test', { path: `/download?bytes=${downloadBytes}` });
  t.is(download.statusCode, 200);
  const hash = createHash('sha256');
  let bytes = 0;
  const first = await new Promise<Buffer>((resolve) => download.once('data', resolve));
  download.pause();
  hash.update(first);
  bytes += first.length;

  // alpha moves to gamma's backend, beta goes, delta comes.
  await writeFile(
    proxy.configPath,
    JSON.stringify({
      server: 'https://certhub.example.test/',
      fetch: false,
      routes: { 'alpha.test': { backend: gamma.address, token: routeToken }, 'delta.test': { backend: delta.address, token: 'chd_delta_token' } },
      host: '127.0.0.1',
      port: 0,
      material_dir: materialDir,
      threads: 2,
    }),
  );
  process.kill(pid, 'SIGHUP');
  // Each of the two front threads applies them.
  await proxy.process.waitFor(/(routes reloaded: added delta\.test; removed beta\.test; changed alpha\.test[\s\S]*){2}/);
  await proxy.process.waitFor(/roles\.proxy\.routes applied/);
  t.notRegex(proxy.process.stdout() + proxy.process.stderr(), /needs? a restart/);

  const after = await whoamiOn(agent, proxy.port);
  t.deepEqual(after, { name: 'gamma', localPort: before.localPort }, 'the same kept-alive connection, answered by the new backend');
  const echoed = new Promise<string>((resolve) => socket.addEventListener('message', (event) => resolve(event.data as string)));
  socket.send('still here');
  t.is(await echoed, 'still here', 'the WebSocket opened before the reload still relays');

  const deltaAnswer = await curlResolve('delta.test', proxy.port, '/whoami');
  t.is(deltaAnswer.code, 0, deltaAnswer.stderr);
  t.is((JSON.parse(deltaAnswer.stdout) as { name: string }).name, 'delta');
  t.is((await curlResolve('beta.test', proxy.port, '/whoami')).code, 35, 'a removed name is refused at the handshake');

  download.resume();
  for await (const chunk of download) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  t.deepEqual(
    { bytes, sha256: hash.digest('hex') },
    { bytes: downloadBytes, sha256: await downloadDigest(downloadBytes) },
    'the download of the removed route ran to its end',
  );

  // Two problems: both are logged, and the running routes stay.
  await writeFile(
    proxy.configPath,
    JSON.stringify({
      server: 'https://certhub.example.test/',
      fetch: false,
      routes: { 'alpha.test': { backend: 'nowhere', token: routeToken }, 'beta.test': { backend: beta.address } },
      host: '127.0.0.1',
      port: 0,
      material_dir: materialDir,
      threads: 2,
    }),
  );
  process.kill(pid, 'SIGHUP');
  const [refused] = await proxy.process.waitFor(/reload refused, the running config stays: .*/);
  t.regex(refused, /routes\.alpha\.test\.backend/);
  t.regex(refused, /routes\.beta\.test\.token/);
  t.is((await whoamiOn(agent, proxy.port)).name, 'gamma');
  t.is((await presentedCertificate(proxy.port, 'delta.test')).subject, 'CN=delta.test');
  t.deepEqual(alpha.requests, ['GET /whoami', 'GET /echo'], "alpha's old backend got only what came before the reload");

  socket.close(1000);
  t.false(proxy.process.stderr().includes('uncaught'));
});

test("SIGHUP hands the fetcher a route's new token: the material it could not fetch before is fetched and served", async (t) => {
  const certhub = await startCerthub(t, await certhubDataDir(t));
  const app = await addIssuedDomain(certhub, 'app');
  const backend = await startProxyBackend(t, 'app');
  const materialDir = await temporaryDir(t, 'proxy-reload-material-');
  const config = (token: string) => ({
    server: certhub.url,
    allow_untrusted: true,
    routes: { [app.name]: { backend: backend.address, token } },
    host: '127.0.0.1',
    port: 0,
    threads: 1,
    material_dir: materialDir,
  });
  const proxy = await startAgentProxy(t, config('chd_not_the_token'));
  await proxy.process.waitFor(/fetch: app\.example\.test: .*\(failure 1\)/);
  await proxy.process.waitFor(
    /fetch: give the proxy the current token of app\.example\.test \(from the certhub panel\): put it in the route's token in the proxy's config file, then send SIGHUP \(systemctl reload certhub-agent-proxy\); until then it is tried again ever less often, up to every 6 hours/,
  );
  await proxy.process.waitFor(
    /no material for app\.example\.test in \S+ yet \(ENOENT\); its handshakes are refused until the proxy's own fetch from certhub writes it/,
  );
  await t.throwsAsync(presentedCertificate(proxy.port, app.name), undefined, 'no material yet: the handshake is refused');

  await writeFile(proxy.configPath, JSON.stringify(config(app.token)));
  process.kill(proxy.process.child.pid!, 'SIGHUP');
  await proxy.process.waitFor(/fetch: now watching 1 route: app\.example\.test/);
  await proxy.process.waitFor(/fetch: app\.example\.test: the new certificate is served by all 1 front \(1 switched to it now\)/);
  const fetched = new X509Certificate(await readFile(materialPaths(materialDir, app.name).fullchain));
  t.is((await presentedCertificate(proxy.port, app.name)).serialNumber, fetched.serialNumber, 'the handshake presents the fetched certificate');
  const answer = await curlResolve(app.name, proxy.port, '/whoami');
  t.is(answer.code, 0, answer.stderr);
  t.is((JSON.parse(answer.stdout) as { name: string }).name, 'app');
});
