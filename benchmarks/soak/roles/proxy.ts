// certhub-agent proxy under soak, in front of a backend that answers `ok` and echoes WebSockets, with
// a self-signed certificate in its material folder (fetch off: the route's material is there): 50
// GETs a second on kept-alive connections, a GET on a fresh TLS connection and a 64 KiB POST every
// second, and a WebSocket a second opened, echoing three messages, and closed.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import type { LookupFunction } from 'node:net';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch, WebSocket } from 'undici';
import { reservePort } from '../../../src/http/port.js';
import { writeSelfSignedMaterial } from '../../agent-proxy.js';
import { projectRoot, startServer } from '../../harness.js';
import { every, expectStatus, type Tally } from '../load.js';
import type { StartRole } from '../role.js';

const domain = 'soak.test';
const uploadBody = Buffer.alloc(64 * 1024, 'x');
const webSocketTimeoutMs = 10_000;

export const soakProxy: StartRole = async (dir) => {
  const backend = await startServer(new URL('dist/benchmarks/hosts/echo-backend.js', projectRoot));
  const materialDir = join(dir, 'material');
  await writeSelfSignedMaterial(materialDir, domain);
  const port = await reservePort('127.0.0.1');
  const metricsPort = await reservePort('127.0.0.1');
  const configPath = join(dir, 'proxy.json');
  const routes = { [domain]: { backend: new URL(backend.urls[0]!).host, token: 'unused' } };
  await writeFile(configPath, JSON.stringify({ server: 'https://certhub.invalid/', fetch: false, routes, host: '127.0.0.1', port, metrics_port: metricsPort, material_dir: materialDir }));
  const proxy = spawn(process.execPath, [new URL('dist/bin/certhub-agent.js', projectRoot).pathname, 'proxy', '-c', configPath, '--quiet'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  proxy.stderr.setEncoding('utf8').on('data', (text: string) => (log += text));
  await new Promise<void>((resolve, reject) => {
    let output = '';
    proxy.stdout.setEncoding('utf8').on('data', (text: string) => {
      output += text;
      if (/^https:\/\/\S+$/m.test(output)) resolve();
    });
    proxy.once('exit', (code) => reject(new Error(`certhub-agent proxy exited with ${code} before listening:\n${log}`)));
  });
  // The route's name resolves to the proxy's loopback address; its certificate is self-signed.
  const dispatcher = new Agent({
    connect: {
      rejectUnauthorized: false,
      lookup: ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
        options.all === true ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4)) as LookupFunction,
    },
  });
  const base = `https://${domain}:${port}`;
  return {
    target: { pid: proxy.pid!, metrics: () => fetch(`http://127.0.0.1:${metricsPort}/metrics`) },
    load: '50 GETs/s kept alive; a GET on a fresh TLS connection, a 64 KiB POST and a WebSocket (3 echoes, then closed) each second',
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
          const status = await freshConnectionGet(port);
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
    async stop() {
      if (proxy.exitCode === null && proxy.signalCode === null) {
        const exited = new Promise((resolve) => proxy.once('exit', resolve));
        proxy.kill('SIGTERM');
        await exited;
      }
      await backend.stop();
    },
  };
};

/** A GET on a connection of its own (no agent: a TLS handshake each time), the body read. */
function freshConnectionGet(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, servername: domain, rejectUnauthorized: false, agent: false, path: '/', headers: { host: `${domain}:${port}` } }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode ?? 0));
    });
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
