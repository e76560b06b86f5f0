// agent-proxy: certhub-agent proxy against nginx (Debian package) in front of the same backend (uWS
// answering `ok`) with the same certificate, measured in the same run, alternating round by round.
// wrk over TLS with keep-alive, 64 connections, SNI `localhost`; nginx gets as many workers as the
// proxy has front threads. Targets: requests a second at least half of nginx's, p99 at most twice.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { promisify } from 'node:util';
import { materialPaths } from '../actors/proxy/client/material-files.js';
import { reservePort } from '../src/http/port.js';
import { ensureTools, median, printTable, projectRoot, startServer, wrk, type LoadResult } from './harness.js';

const run = promisify(execFile);
const connections = 64;
const domain = 'localhost';
const threadCounts = [1, 2];

interface Listener {
  port: number;
  stop(): Promise<void>;
}

export async function agentProxyBenchmark(options: { seconds: number; rounds: number }): Promise<void> {
  await ensureTools(['wrk', 'nginx']);
  const dir = await mkdtemp(join(tmpdir(), 'agent-proxy-bench-'));
  const backend = await startServer(new URL('dist/benchmarks/hosts/ok-backend.js', projectRoot));
  try {
    const backendAddress = new URL(backend.urls[0]!).host;
    const material = await writeMaterial(dir);
    const rows: (string | number)[][] = [];
    const loadBefore = loadavg()[0] ?? 0;
    for (const threads of threadCounts) {
      const proxy = await startAgentProxy(dir, threads, backendAddress);
      const nginx = await startNginx(dir, threads, backendAddress, material);
      try {
        const proxyUrl = `https://${domain}:${proxy.port}/`;
        const nginxUrl = `https://${domain}:${nginx.port}/`;
        await wrk(proxyUrl, { connections, seconds: 1 });
        await wrk(nginxUrl, { connections, seconds: 1 });
        const proxyResults: LoadResult[] = [];
        const nginxResults: LoadResult[] = [];
        for (let round = 0; round < options.rounds; round++) {
          nginxResults.push(await wrk(nginxUrl, { connections, seconds: options.seconds }));
          proxyResults.push(await wrk(proxyUrl, { connections, seconds: options.seconds }));
        }
        const rate = (results: LoadResult[]) => median(results.map((result) => result.requestsPerSecond));
        const p99 = (results: LoadResult[]) => median(results.map((result) => result.latencyP99Ms));
        const errors = (results: LoadResult[]) => results.reduce((sum, result) => sum + result.errors, 0);
        rows.push(
          [`nginx, ${threads} worker${threads > 1 ? 's' : ''}`, rate(nginxResults), '1.00', p99(nginxResults), '1.00', errors(nginxResults)],
          [`certhub-agent proxy, ${threads} thread${threads > 1 ? 's' : ''}`, rate(proxyResults), (rate(proxyResults) / rate(nginxResults)).toFixed(2), p99(proxyResults), (p99(proxyResults) / p99(nginxResults)).toFixed(2), errors(proxyResults)],
        );
      } finally {
        await proxy.stop();
        await nginx.stop();
      }
    }
    printTable(
      `agent-proxy: wrk -t1 -c${connections} over TLS (keep-alive, SNI ${domain}) -> proxy -> backend answering "ok"; median of ${options.rounds} x ${options.seconds} s; load average ${loadBefore.toFixed(1)} -> ${(loadavg()[0] ?? 0).toFixed(1)}`,
      ['case', 'req/s', 'vs nginx', 'p99 ms', 'p99 vs nginx', 'errors'],
      rows,
    );
    console.log('targets: req/s at least 0.50 of nginx; p99 at most 2.00 of nginx');
  } finally {
    await backend.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** A self-signed certificate for `localhost` laid out as certhub-agent fetch writes material. */
async function writeMaterial(dir: string): Promise<{ fullchain: string; key: string }> {
  const paths = materialPaths(join(dir, 'material'), domain);
  await mkdir(paths.folder, { recursive: true, mode: 0o700 });
  await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', paths.key, '-out', paths.fullchain, '-days', '2', '-subj', `/CN=${domain}`, '-addext', `subjectAltName=DNS:${domain}`]);
  return { fullchain: paths.fullchain, key: paths.key };
}

async function startAgentProxy(dir: string, threads: number, backend: string): Promise<Listener> {
  const file = join(dir, `proxy-${threads}.json`);
  const port = await reservePort('127.0.0.1');
  await writeFile(file, JSON.stringify({ server: 'https://certhub.invalid/', fetch: false, routes: { [domain]: { backend, token: 'unused' } }, host: '127.0.0.1', port, threads, material_dir: join(dir, 'material') }));
  const child = spawn(process.execPath, [new URL('dist/bin/certhub-agent.js', projectRoot).pathname, 'proxy', '-c', file, '--quiet'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      output += text;
      if (/^https:\/\/\S+$/m.test(output)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`certhub-agent proxy exited with ${code} before listening`)));
  });
  return { port, stop: () => stopChild(child) };
}

async function startNginx(dir: string, workers: number, backend: string, material: { fullchain: string; key: string }): Promise<Listener> {
  const prefix = join(dir, `nginx-${workers}`);
  await mkdir(prefix, { recursive: true });
  const port = await reservePort('127.0.0.1');
  const conf = join(prefix, 'nginx.conf');
  await writeFile(
    conf,
    `worker_processes ${workers};
daemon off;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${prefix}/body; proxy_temp_path ${prefix}/proxy; fastcgi_temp_path ${prefix}/fastcgi; uwsgi_temp_path ${prefix}/uwsgi; scgi_temp_path ${prefix}/scgi;
  upstream backend { server ${backend}; keepalive ${connections}; }
  server {
    listen 127.0.0.1:${port} ssl;
    server_name ${domain};
    ssl_certificate ${material.fullchain};
    ssl_certificate_key ${material.key};
    location / { proxy_pass http://backend; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
`,
  );
  const child = spawn('nginx', ['-c', conf, '-p', prefix], { stdio: ['ignore', 'inherit', 'inherit'] });
  const deadline = performance.now() + 10_000;
  while (!(await handshakes(port))) {
    if (child.exitCode !== null || performance.now() > deadline) throw new Error(`nginx did not start; see ${prefix}/error.log`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { port, stop: () => stopChild(child) };
}

function handshakes(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, servername: domain, rejectUnauthorized: false }, () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
