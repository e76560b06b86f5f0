// certhub-agent proxy under soak, in front of a backend that answers `ok` and echoes WebSockets, its
// route's material fetched from a `certhub run --demo` every second (so the fetcher runs all along):
// 50 GETs a second on kept-alive connections, a GET on a fresh TLS connection and a 64 KiB POST every
// second, and a WebSocket a second opened, echoing three messages, and closed.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import type { LookupFunction } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, fetch as undiciFetch, WebSocket } from 'undici';
import { reservePort } from '../../../src/http/port.js';
import { addDomain, listDomains, startCerthub, writeCerthubConfig, type CerthubServer } from '../../certhub-server.js';
import { projectRoot, startServer, type StartedServer } from '../../harness.js';
import { startInspected } from '../inspector.js';
import { every, expectStatus, type Tally } from '../load.js';
import type { SoakRole, StartRole } from '../role.js';

const uploadBody = Buffer.alloc(64 * 1024, 'x');
const webSocketTimeoutMs = 10_000;

export const soakProxy: StartRole = async (dir) => {
  const backend = await startServer(new URL('dist/benchmarks/hosts/echo-backend.js', projectRoot));
  const certhubDir = join(dir, 'certhub');
  await writeCerthubConfig(certhubDir, 'example.test');
  const certhub = await startCerthub(certhubDir, ['--demo']).catch(async (error: unknown) => {
    await backend.stop();
    throw error;
  });
  const started: Started = { backend, certhub, proxy: undefined };
  try {
    return await startProxy(dir, started);
  } catch (error) {
    await stopAll(started);
    throw error;
  }
};

interface Started {
  backend: StartedServer;
  certhub: CerthubServer;
  proxy: ChildProcess | undefined;
}

async function stopAll({ backend, certhub, proxy }: Started): Promise<void> {
  if (proxy !== undefined && proxy.exitCode === null && proxy.signalCode === null) {
    const exited = new Promise((resolve) => proxy.once('exit', resolve));
    proxy.kill('SIGTERM');
    await exited;
  }
  await backend.stop();
  await certhub.stop();
}

/** The proxy on free ports with a route to the backend, once it serves the route with material fetched from certhub. */
async function startProxy(dir: string, started: Started): Promise<SoakRole> {
  const { backend, certhub } = started;
  const { name: domain, token } = await issuedDomain(certhub);
  const port = await reservePort('127.0.0.1');
  const metricsPort = await reservePort('127.0.0.1');
  const configPath = join(dir, 'proxy.json');
  const routes = { [domain]: { backend: new URL(backend.urls[0]!).host, token } };
  await writeFile(
    configPath,
    JSON.stringify({
      server: certhub.url,
      allow_untrusted: true,
      fetch_interval_seconds: 1,
      routes,
      host: '127.0.0.1',
      port,
      metrics_port: metricsPort,
      material_dir: join(dir, 'material'),
    }),
    { mode: 0o600 },
  );
  // The inspector on a loopback port: the sampler collects garbage in every thread before a sample (inspector.ts).
  let log = '';
  const { started: proxy, inspector } = await startInspected(
    async (option) => {
      const proxy = spawn(process.execPath, [option, new URL('dist/bin/certhub-agent.js', projectRoot).pathname, 'proxy', '-c', configPath, '--quiet'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      started.proxy = proxy;
      proxy.stderr.setEncoding('utf8').on('data', (text: string) => (log += text));
      await new Promise<void>((resolve, reject) => {
        let output = '';
        proxy.stdout.setEncoding('utf8').on('data', (text: string) => {
          output += text;
          if (/^https:\/\/\S+$/m.test(output)) resolve();
        });
        proxy.once('exit', (code) => reject(new Error(`certhub-agent proxy exited with ${code} before listening:\n${log}`)));
      });
      return proxy;
    },
    // The caller stops what started (stopAll) when this throws.
    () => Promise.resolve(),
  );
  // The route's name resolves to the proxy's loopback address; certhub --demo's certificate chains to no trusted root.
  const dispatcher = new Agent({
    connect: {
      rejectUnauthorized: false,
      lookup: ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
        options.all === true ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4)) as LookupFunction,
    },
  });
  const base = `https://${domain}:${port}`;
  const stopInspected = () => (inspector.close(), stopAll(started));
  await servingRoute(base, dispatcher).catch(async (error: unknown) => {
    await dispatcher.close();
    inspector.close();
    throw error;
  });
  return {
    target: { pid: proxy.pid!, metrics: () => fetch(`http://127.0.0.1:${metricsPort}/metrics`), inspector },
    load: 'its material fetched from certhub --demo each second; 50 GETs/s kept alive; a GET on a fresh TLS connection, a 64 KiB POST and a WebSocket (3 echoes, then closed) each second',
    async run(signal: AbortSignal, tally: Tally) {
      const get = async () => {
        await expectStatus(await undiciFetch(`${base}/`, { dispatcher }), 200);
        tally.ok('GET 200');
      };
      await Promise.all([
        every(100, signal, tally, 'GET', async () => void (await Promise.all(Array.from({ length: 5 }, get)))),
        every(1000, signal, tally, 'POST 64 KiB', async () => {
          await expectStatus(await undiciFetch(`${base}/upload`, { method: 'POST', body: uploadBody, dispatcher }), 200);
          tally.ok('POST 64 KiB 200');
        }),
        every(1000, signal, tally, 'GET on a fresh connection', async () => {
          const status = await freshConnectionGet(port, domain);
          if (status !== 200) throw new Error(`HTTP ${status}`);
          tally.ok('GET on a fresh connection 200');
        }),
        every(1000, signal, tally, 'WebSocket', async () => {
          await echoThree(`wss://${domain}:${port}/echo`, dispatcher);
          tally.ok('WebSocket: 3 echoes and a clean close');
        }),
      ]);
      await dispatcher.close();
    },
    log: () => log,
    stop: stopInspected,
  };
}

/** A domain added to the demo certhub and issued (its demo certificate is made at once). */
async function issuedDomain(certhub: CerthubServer): Promise<{ name: string; token: string }> {
  const added = await addDomain(certhub, 'soak', '127.0.0.1');
  const deadline = performance.now() + 30_000;
  for (;;) {
    const entry = (await listDomains(certhub)).find((candidate) => candidate.name === added.name);
    if (entry?.status === 'issued') return { name: entry.name, token: entry.token };
    if (performance.now() > deadline) throw new Error(`${added.name} not issued by certhub --demo in 30 s: ${entry?.status ?? 'gone'}`);
    await sleep(100);
  }
}

/** Waits until the proxy has fetched the route's material and answers through it. */
async function servingRoute(base: string, dispatcher: Agent): Promise<void> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    const status = await undiciFetch(`${base}/`, { dispatcher }).then(
      async (response) => (await response.arrayBuffer(), response.status),
      () => 0,
    );
    if (status === 200) return;
    if (performance.now() > deadline)
      throw new Error(`the proxy did not serve its route within 30 s (last: ${status === 0 ? 'no TLS answer' : `HTTP ${status}`})`);
    await sleep(200);
  }
}

/** A GET on a connection of its own (no agent: a TLS handshake each time), the body read. */
function freshConnectionGet(port: number, domain: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: '127.0.0.1', port, servername: domain, rejectUnauthorized: false, agent: false, path: '/', headers: { host: `${domain}:${port}` } },
      (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode ?? 0));
      },
    );
    outgoing.once('error', reject);
    outgoing.setTimeout(10_000, () => outgoing.destroy(new Error('no answer in 10 s')));
    outgoing.end();
  });
}

/** Opens a WebSocket through the proxy, sends three messages, waits for their echoes, closes it and waits for the close. */
function echoThree(url: string, dispatcher: Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { dispatcher });
    const sent = ['one', 'two', 'three'];
    const received: string[] = [];
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`no clean echo and close in ${webSocketTimeoutMs / 1000} s (received ${received.length})`));
    }, webSocketTimeoutMs);
    socket.addEventListener('open', () => sent.forEach((message) => socket.send(message)));
    socket.addEventListener('message', (event) => {
      received.push(String(event.data));
      if (received.length === sent.length) socket.close(1000);
    });
    socket.addEventListener('error', () => {
      clearTimeout(timer);
      reject(new Error('WebSocket error'));
    });
    socket.addEventListener('close', (event) => {
      clearTimeout(timer);
      if (received.join(' ') === sent.join(' ') && event.code === 1000) resolve();
      else reject(new Error(`closed with ${event.code} after ${received.length} echoes (${received.join(' ')})`));
    });
  });
}
