// Actors killed, not the process, for the proxy's cert-fetcher: `certhub-agent proxy`
// fetches its route's material from a real `certhub run --demo` each second and relays to a real
// backend, while `proxy/cert-fetcher` is terminated at random instants (OUTPOST_TEST_KILL_ACTOR,
// SIGUSR2). Kept-alive requests, requests on fresh TLS connections, a WebSocket open through every kill
// and WebSockets opened and closed all go on being answered: the fronts serve the material they hold
// while the fetcher is down. Once restarted, the fetcher picks up a certificate that changed on
// certhub. The proxy's fronts are not killed: ending a uWS thread from outside aborts the process.
import { readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { fetch as undiciFetch } from 'undici';
import type WebSocket from 'ws';
import { loopbackDispatcher, presentedCertificate, proxiedWebSocket, startAgentProxy, temporaryDir } from '../../helpers/agent-proxy.js';
import { testCertificate } from '../../helpers/certificates.js';
import { certhubDataDir, startCerthub, type RunningCerthub } from '../../helpers/certhub.js';
import { addIssuedDomain } from '../../helpers/certhub-agent.js';
import { eventually } from '../../helpers/fixture-host.js';
import { listeningSockets } from '../../helpers/listening-sockets.js';
import { actorStates } from '../../helpers/outpost.js';
import { startProxyBackend } from '../../helpers/proxy-backend.js';
import { startTcpRelay } from '../helpers/tcp-relay.js';

const killed = 'proxy/cert-fetcher';
/** Below the default policy's limit (5 restarts within 60 s), so the role is never given up. */
const rounds = 4;
/** Past this a request counts as hung; it bounds a hang, it is not a timing assertion. */
const requestDeadlineMs = 20_000;

async function until(check: () => Promise<boolean>, what: string | (() => string), timeoutMs = 60_000): Promise<void> {
  if (!(await eventually(check, timeoutMs, 100))) throw new Error(`not within ${timeoutMs} ms: ${typeof what === 'string' ? what : what()}`);
}

/** A GET on a TLS connection of its own (no agent, so a handshake each time): its status, or what went wrong. */
function freshConnectionGet(port: number, name: string): Promise<string> {
  return new Promise((resolve) => {
    const outgoing = request(
      { host: '127.0.0.1', port, servername: name, rejectUnauthorized: false, agent: false, path: '/whoami', headers: { host: `${name}:${port}` } },
      (response) => {
        response.resume();
        response.once('end', () => resolve(String(response.statusCode)));
      },
    );
    outgoing.once('error', (error) => resolve(error.message));
    outgoing.setTimeout(requestDeadlineMs, () => outgoing.destroy(new Error('hung')));
    outgoing.end();
  });
}

/** Sends `message` on `socket` and waits for its echo: 'echoed', or what went wrong. */
function echo(socket: WebSocket, message: string): Promise<string> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => finish('hung'), requestDeadlineMs);
    const onMessage = (data: Buffer) => finish(data.toString() === message ? 'echoed' : `echoed ${data.toString()} for ${message}`);
    const onClose = (code: number) => finish(`closed with ${code}`);
    const finish = (outcome: string) => {
      clearTimeout(timer);
      socket.off('message', onMessage).off('close', onClose);
      resolve(outcome);
    };
    socket.on('message', onMessage).once('close', onClose);
    socket.send(message);
  });
}

/** A WebSocket opened through the proxy, one message echoed, closed: 'echoed', or what went wrong. */
async function shortWebSocket(port: number, name: string, round: number): Promise<string> {
  const socket = await proxiedWebSocket(port, name, '/echo').catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
  if (typeof socket === 'string') return `open failed: ${socket}`;
  const outcome = await echo(socket, `short ${round}`);
  socket.close(1000);
  return outcome;
}

/** Stops certhub and gives the domain new material in its store, as a renewal would; certhub is started again on the same data. */
async function renewOnCerthub(t: ExecutionContext, certhub: RunningCerthub, name: string, serialHex: string): Promise<RunningCerthub> {
  certhub.child.kill('SIGTERM');
  await certhub.exited;
  const file = join(certhub.dataDir, 'domains', `${name}.json`);
  const stored = JSON.parse(await readFile(file, 'utf8')) as {
    record: { expires_at: string | null };
    material: { cert_pem: string; chain_pem: string; key_pem: string };
  };
  // Whole seconds: certhub answers expires_at, and a fetch refuses material whose notAfter differs from it.
  const now = Math.floor(Date.now() / 1000) * 1000;
  const notAfter = new Date(now + 60 * 86_400_000);
  const renewed = await testCertificate({ name, serialHex, notBefore: new Date(now - 3_600_000), notAfter });
  stored.material = { cert_pem: renewed.certPem, chain_pem: '', key_pem: renewed.keyPem };
  stored.record.expires_at = notAfter.toISOString();
  await writeFile(file, `${JSON.stringify(stored)}\n`, { mode: 0o600 });
  return startCerthub(t, certhub.dataDir);
}

/** The sockets listening on `port`, to explain a failure. */
function listeners(port: number): string {
  try {
    return listeningSockets(port).join('; ') || 'none';
  } catch (error) {
    return `ss failed: ${String(error)}`;
  }
}

/** What the fetcher and the supervisor said about it, to explain a failure. */
function fetcherLines(output: string): string {
  return output
    .split('\n')
    .filter((line) => /fetch:|cert-fetcher|certificate served|SNI/.test(line))
    .slice(-30)
    .join('\n');
}

test('proxy/cert-fetcher killed at random instants under load: restarted, no request hangs or fails, a WebSocket stays open, and a certificate renewed on certhub is served after', async (t) => {
  t.timeout(5 * 60_000);
  const temp = await temporaryDir(t, 'kill-proxy-');
  const backend = await startProxyBackend(t, 'backend');
  let certhub = await startCerthub(t, await certhubDataDir(t));
  const { name, token } = await addIssuedDomain(certhub, 'app');
  const relay = await startTcpRelay(t, Number(new URL(certhub.url).port));
  const proxy = await startAgentProxy(
    t,
    {
      server: relay.url,
      routes: { [name]: { backend: backend.address, token } },
      host: '127.0.0.1',
      port: 0,
      material_dir: await temporaryDir(t, 'kill-proxy-material-'),
      allow_untrusted: true,
      // The fetcher asks certhub each second, so a kill lands in a fetch as often as between two.
      fetch_interval_seconds: 1,
    },
    { TMPDIR: temp, OUTPOST_TEST_KILL_ACTOR: killed },
  );
  await proxy.process.waitFor(/fetch: new material for app\.example\.test/, 30_000);
  const before = await presentedCertificate(proxy.port, name);

  const dispatcher = loopbackDispatcher(t);
  const keptAlive: string[] = [];
  const fresh: string[] = [];
  /** When a GET on a fresh connection first failed, and how, for a failure's message. */
  let firstFreshFailure: string | undefined;
  const echoes: string[] = [];
  const shortSockets: string[] = [];
  const longSocket = await proxiedWebSocket(proxy.port, name, '/echo');
  t.teardown(() => longSocket.terminate());
  let stopLoad = false;
  t.teardown(() => {
    stopLoad = true;
  });
  /** A loop whose outcome failed waits before the next try, so a proxy that went away does not spin the test. */
  const after = (outcome: string, expected: string) => new Promise((resolve) => setTimeout(resolve, outcome === expected ? 0 : 200));
  const load = [
    ...Array.from({ length: 2 }, async () => {
      while (!stopLoad) {
        const outcome = await undiciFetch(`https://${name}:${proxy.port}/whoami`, { dispatcher, signal: AbortSignal.timeout(requestDeadlineMs) }).then(
          async (response) => (await response.arrayBuffer(), String(response.status)),
          (error: unknown) => String(error),
        );
        keptAlive.push(outcome);
        await after(outcome, '200');
      }
    }),
    (async () => {
      while (!stopLoad) {
        const outcome = await freshConnectionGet(proxy.port, name);
        fresh.push(outcome);
        if (outcome !== '200' && firstFreshFailure === undefined) firstFreshFailure = `${new Date().toISOString()} ${outcome}`;
        await after(outcome, '200');
      }
    })(),
    (async () => {
      for (let count = 0; !stopLoad; count++) {
        echoes.push(await echo(longSocket, `long ${count}`));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })(),
    (async () => {
      for (let count = 0; !stopLoad; count++) {
        shortSockets.push(await shortWebSocket(proxy.port, name, count));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })(),
  ];

  const running = async () => (await actorStates(temp)).get(killed)?.state === 'running';
  for (let round = 1; round <= rounds; round++) {
    // Running again before the next signal, so that each signal ends a live thread.
    await until(running, `${killed} running before round ${round}`);
    await new Promise((resolve) => setTimeout(resolve, 200 + Math.random() * 1500));
    process.kill(proxy.process.child.pid ?? 0, 'SIGUSR2');
    await proxy.process.waitFor(new RegExp(`(SIGUSR2: terminated actor ${killed}[^]*){${round}}`), 20_000);
  }
  await until(running, `${killed} running after the last round`);
  t.is((await actorStates(temp)).get(killed)?.restarts, rounds, 'restarted once per kill');

  // The restarted fetcher picks up a certificate that changed on certhub while the load goes on.
  const renewedSerial = 'C0FFEE01';
  certhub = await renewOnCerthub(t, certhub, name, renewedSerial);
  relay.retarget(Number(new URL(certhub.url).port));
  let served = before;
  /** What the last handshake gave: a serial, or why there was none. */
  let lastHandshake = `serial ${before.serialNumber}`;
  await until(
    async () => {
      served = await presentedCertificate(proxy.port, name).catch((error: unknown) => {
        lastHandshake = `failed: ${String(error)}`;
        throw error;
      });
      lastHandshake = `serial ${served.serialNumber}`;
      return served.serialNumber !== before.serialNumber;
    },
    () =>
      `the renewed certificate served (it was ${before.serialNumber}; the last handshake: ${lastHandshake}; the last GETs on fresh connections: ${fresh.slice(-5).join(', ')}; the first that failed: ${firstFreshFailure ?? 'none'}; listening on the port: ${listeners(proxy.port)}); the fetcher and fronts said:\n${fetcherLines(proxy.process.stdout() + proxy.process.stderr())}`,
  );
  t.is(served.serialNumber, renewedSerial);
  stopLoad = true;
  await Promise.all(load);

  t.log(
    `${keptAlive.length} kept-alive GETs, ${fresh.length} on fresh connections, ${echoes.length} echoes on the open WebSocket, ${shortSockets.length} short WebSockets`,
  );
  const failed = (outcomes: string[], expected: string) => outcomes.filter((outcome) => outcome !== expected);
  t.deepEqual(failed(keptAlive, '200'), [], 'every kept-alive GET answered 200');
  t.deepEqual(failed(fresh, '200'), [], 'every GET on a fresh TLS connection answered 200');
  t.deepEqual(failed(echoes, 'echoed'), [], 'the open WebSocket echoed every message');
  // Every short WebSocket echoes: the 1006 some ended with under load (2 of ~100 in 3 of 12 runs) was
  // the relay's upgrade inside uWS's cork, not the kills (agent-proxy-websocket-open.test.ts).
  t.deepEqual(failed(shortSockets, 'echoed'), [], 'every short WebSocket opened and echoed');
  for (const outcomes of [keptAlive, fresh, echoes, shortSockets]) t.true(outcomes.length > 0);
  t.is((proxy.process.stdout() + proxy.process.stderr()).match(/SIGUSR2: terminated actor/g)?.length, rounds, 'each signal terminated the fetcher');

  longSocket.close(1000);
  proxy.process.child.kill('SIGTERM');
  t.is(await proxy.process.exited, 0, proxy.process.stderr());
});
