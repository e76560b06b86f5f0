// agent-proxy: certhub-agent proxy against nginx as a proxy (Debian package), both in front of the same
// fast backend (nginx, 1 worker, `return 200 "ok"`: about twice what either proxy can pass, so neither
// proxy is held back by it) with the same certificate, and nginx answering `ok` itself over TLS (the
// ceiling of the TLS layer), measured in the same run, alternating round by round. wrk over TLS with
// keep-alive, 64 connections, SNI `bench.localhost`; nginx gets as many workers as the proxy has front
// threads. Targets: requests a second at least 0.8 of nginx as proxy, p99 at most 1.5x.
// With `--before DIST`, an earlier build's proxy is measured in the same rounds.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { materialPaths } from '../actors/proxy/client/material-files.js';
import { reservePort } from '../src/http/port.js';
import { cpuSeconds } from './measure/proc-stat.js';
import { ensureTools, median, printTable, projectRoot, stopChild, wrk, type LoadResult } from './harness.js';
import { startNginx, type Listener } from './third-party/nginx.js';
import { figure, ratio, summaryRow } from './summary-table.js';
import { writeSelfSigned } from './third-party/openssl.js';

const connections = 64;
/** A route name must have two labels; the resolver does not know it, so wrk connects through `loopbackScript`. */
const domain = 'bench.localhost';
/** wrk takes SNI and Host from the URL's name and connects to 127.0.0.1 whatever the resolver says of it. */
const loopbackScript = `function wrk.resolve(host, service)
  wrk.addrs = wrk.lookup("127.0.0.1", service)
end
`;
const threadCounts = [1, 2];
/**
 * nginx as its users set it up in front of an application: HTTP/1.1 kept alive to the backend, and the
 * same headers certhub-agent proxy sends it (the client's Host, X-Forwarded-For, -Proto and -Host), so
 * both proxies do the same work per request.
 */
const nginxProxyLocation = [
  'proxy_pass http://backend;',
  'proxy_http_version 1.1;',
  'proxy_set_header Connection "";',
  'proxy_set_header Host $host;',
  'proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
  'proxy_set_header X-Forwarded-Proto $scheme;',
  'proxy_set_header X-Forwarded-Host $host;',
].join(' ');
/** nginx closes a kept-alive connection after 1,000 requests by default; neither proxy should pay for reconnects. */
const keptAliveRequests = 1_000_000;

interface Measured {
  load: LoadResult;
  /** The server's CPU time per answered request, in microseconds: what the machine's load does not change. */
  cpuMicrosPerRequest: number;
}

export async function agentProxyBenchmark(options: { seconds: number; rounds: number; before?: string }): Promise<void> {
  await ensureTools(['wrk', 'nginx']);
  const dir = await mkdtemp(join(tmpdir(), 'agent-proxy-bench-'));
  const material = await writeMaterial(dir);
  const backend = await startNginx({
    dir,
    name: 'backend',
    workers: 1,
    server: `listen 127.0.0.1:PORT; keepalive_requests ${keptAliveRequests}; location / { return 200 "ok"; }`,
  });
  try {
    const backendAddress = `127.0.0.1:${backend.port}`;
    const script = join(dir, 'loopback.lua');
    await writeFile(script, loopbackScript);
    const rows: (string | number)[][] = [];
    const loadBefore = loadavg()[0] ?? 0;
    for (const threads of threadCounts) {
      const servers = [
        {
          label: `nginx answering directly over TLS, ${plural(threads, 'worker')} (the TLS ceiling)`,
          listener: await startNginx({
            dir,
            name: `tls-${threads}`,
            workers: threads,
            server: `${tlsServer(material)} location / { return 200 "ok"; }`,
            servername: domain,
          }),
        },
        {
          label: `nginx as proxy, ${plural(threads, 'worker')}`,
          listener: await startNginx({
            dir,
            name: `proxy-${threads}`,
            workers: threads,
            server: `${tlsServer(material)} location / { ${nginxProxyLocation} }`,
            http: `upstream backend { server ${backendAddress}; keepalive ${connections}; keepalive_requests ${keptAliveRequests}; }`,
            servername: domain,
          }),
        },
        {
          label: `certhub-agent proxy, ${plural(threads, 'thread')}`,
          listener: await startAgentProxy(dir, 'this', threads, backendAddress, new URL('dist/bin/certhub-agent.js', projectRoot)),
        },
        ...(options.before === undefined
          ? []
          : [
              {
                label: `certhub-agent proxy of ${options.before}, ${plural(threads, 'thread')}`,
                listener: await startAgentProxy(
                  dir,
                  'before',
                  threads,
                  backendAddress,
                  pathToFileURL(join(resolve(options.before), 'bin', 'certhub-agent.js')),
                ),
              },
            ]),
      ];
      try {
        const urls = servers.map(({ listener }) => `https://${domain}:${listener.port}/`);
        for (const url of urls) await wrk(url, { connections, seconds: 1, script });
        const results: Measured[][] = servers.map(() => []);
        // Round by round, so that a change in the machine's load falls on every case alike.
        for (let round = 0; round < options.rounds; round++) {
          for (const [index, { listener }] of servers.entries()) {
            const cpuBefore = listener.cpuSeconds();
            const load = await wrk(urls[index]!, { connections, seconds: options.seconds, script });
            results[index]!.push({ load, cpuMicrosPerRequest: ((listener.cpuSeconds() - cpuBefore) * 1e6) / (load.requestsPerSecond * load.seconds) });
          }
        }
        const rate = (index: number) => median(results[index]!.map(({ load }) => load.requestsPerSecond));
        const p99 = (index: number) => median(results[index]!.map(({ load }) => load.latencyP99Ms));
        const cpu = (index: number) => median(results[index]!.map(({ cpuMicrosPerRequest }) => cpuMicrosPerRequest));
        const errors = (index: number) => results[index]!.reduce((sum, { load }) => sum + load.errors, 0);
        const nginxProxy = 1;
        const [ours, nginxFigures] = [2, nginxProxy].map(
          (index) => `${figure(rate(index))} req/s, p99 ${figure(p99(index))} ms, ${figure(cpu(index))} µs CPU a request`,
        );
        summaryRow({
          benchmark: `agent-proxy, ${plural(threads, 'thread')}: wrk -t1 -c${connections} over TLS through the proxy to an nginx backend answering \`ok\` (median of ${options.rounds} x ${options.seconds} s)`,
          ours: ours!,
          anchor: `nginx as proxy, ${plural(threads, 'worker')}, the same backend and certificate (nginx answering over TLS itself: ${figure(rate(0))} req/s)`,
          anchorFigure: nginxFigures!,
          ratio: `${ratio(rate(2), rate(nginxProxy))} (p99 ${ratio(p99(2), p99(nginxProxy))}, CPU ${ratio(cpu(2), cpu(nginxProxy))})`,
        });
        servers.forEach(({ label }, index) =>
          rows.push([
            label,
            rate(index),
            (rate(index) / rate(nginxProxy)).toFixed(2),
            p99(index),
            (p99(index) / p99(nginxProxy)).toFixed(2),
            cpu(index),
            (cpu(index) / cpu(nginxProxy)).toFixed(2),
            errors(index),
          ]),
        );
      } finally {
        for (const { listener } of servers) await listener.stop();
      }
    }
    printTable(
      `agent-proxy: wrk -t1 -c${connections} over TLS (keep-alive, SNI ${domain}) -> proxy -> nginx backend (1 worker) answering "ok"; median of ${options.rounds} x ${options.seconds} s; load average ${loadBefore.toFixed(1)} -> ${(loadavg()[0] ?? 0).toFixed(1)}`,
      ['case', 'req/s', 'vs nginx proxy', 'p99 ms', 'p99 vs nginx proxy', 'CPU us/req', 'CPU vs nginx proxy', 'errors'],
      rows,
    );
    console.log('targets: certhub-agent proxy req/s at least 0.80 of nginx as proxy; p99 at most 1.50 of nginx as proxy');
  } finally {
    await backend.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count > 1 ? 's' : ''}`;
}

/** A self-signed certificate for `localhost` laid out as certhub-agent fetch writes material. */
async function writeMaterial(dir: string): Promise<{ fullchain: string; key: string }> {
  const paths = materialPaths(join(dir, 'material'), domain);
  await mkdir(paths.folder, { recursive: true, mode: 0o700 });
  await writeSelfSigned({ keyFile: paths.key, certFile: paths.fullchain, subject: `/CN=${domain}`, extensions: [`subjectAltName=DNS:${domain}`] });
  return { fullchain: paths.fullchain, key: paths.key };
}

/** `bin`: this build's certhub-agent, or an earlier build's for `--before`; `name` tells their configs apart. */
async function startAgentProxy(dir: string, name: string, threads: number, backend: string, bin: URL): Promise<Listener> {
  const file = join(dir, `agent-proxy-${name}-${threads}.json`);
  const port = await reservePort('127.0.0.1');
  await writeFile(
    file,
    JSON.stringify({
      server: 'https://certhub.invalid/',
      fetch: false,
      routes: { [domain]: { backend, token: 'unused' } },
      host: '127.0.0.1',
      port,
      threads,
      material_dir: join(dir, 'material'),
    }),
    { mode: 0o600 },
  );
  const child = spawn(process.execPath, [bin.pathname, 'proxy', '-c', file, '--quiet'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      output += text;
      if (/^https:\/\/\S+$/m.test(output)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`certhub-agent proxy exited with ${code} before listening`)));
  });
  return { port, cpuSeconds: () => cpuSeconds(child.pid!), stop: () => stopChild(child) };
}

/**
 * A TLS listener for `localhost` with the benchmark's certificate, the same one the proxy serves. TLS
 * 1.3 as the proxy speaks it: nginx 1.22 offers 1.2 at most unless told (Debian's own nginx.conf tells it).
 */
function tlsServer(material: { fullchain: string; key: string }): string {
  return `listen 127.0.0.1:PORT ssl; server_name ${domain}; ssl_protocols TLSv1.2 TLSv1.3; ssl_certificate ${material.fullchain}; ssl_certificate_key ${material.key}; keepalive_requests ${keptAliveRequests};`;
}
