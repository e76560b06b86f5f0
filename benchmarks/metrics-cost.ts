// metrics-cost: what a Prometheus scrape every second costs each role's hot path (issue 26). For each
// of qpool-serve (GET /api/random/hex), cert-fetch (GET /api/cert/<domain> with its token) and
// agent-proxy (GET through TLS to a backend answering "ok"), two `outpost run` processes with the same
// role: A with metrics on (every thread pushes its figures every second) and scraped at 1 Hz during
// its rounds, B with metrics off (supervisor.metrics_interval_ms 0: nothing is counted). wrk runs on
// A and B in alternate rounds (the machine is shared: alternating spreads other load over both), and
// the medians are compared. Target: A within 2% of B's requests a second.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { materialPaths } from '../actors/proxy/client/material-files.js';
import { sliceValues } from '../actors/qpool/collector/values.js';
import { reservePort } from '../src/http/port.js';
import { formatHostPort } from '../src/net/address.js';
import { credential, luaRotation } from './cert-fetch.js';
import { fillDataDir } from './cert-store.js';
import { writeCerthubConfig } from './certhub-server.js';
import { ensureTools, median, printTable, projectRoot, startServer, verdict, wrk, type LoadResult } from './harness.js';
import { ValueFeed } from './qpool-serve/value-feed.js';

const connections = 64;
const metricsToken = 'metrics-cost-benchmark-token-0123456789';
const poolCapacity = 100_000;
const certDomains = 1000;
const proxyDomain = 'app.example.test';
const run = promisify(execFile);

/** One role's hot path, in a process with metrics on or off. */
interface Subject {
  /** What wrk loads. */
  url: string;
  script?: string;
  /** A command wrk runs under. */
  prefix?: string[];
  /** The role's /metrics, and the headers a scrape sends. */
  metricsUrl: string;
  metricsHeaders: Record<string, string>;
  /** Made ready for a round (a pool refilled). */
  beforeRound(): Promise<void>;
  stop(): Promise<void>;
}

interface RoleCase {
  label: string;
  start(dir: string, metricsOn: boolean): Promise<Subject>;
  /** Seconds of one round at most (a pool must not run dry within it). */
  maxRoundSeconds?: number;
}

export async function metricsCostBenchmark(options: { seconds: number; rounds: number }): Promise<void> {
  await ensureTools(['wrk']);
  const dir = await mkdtemp(join(tmpdir(), 'metrics-cost-bench-'));
  const backend = await startServer(new URL('dist/benchmarks/hosts/ok-backend.js', projectRoot));
  const rows: (string | number)[][] = [];
  const verdicts: string[] = [];
  const loads: string[] = [loadavg().map((value) => value.toFixed(2)).join(' ')];
  try {
    for (const role of roleCases(new URL(backend.urls[0]!).host)) {
      const seconds = Math.min(options.seconds, role.maxRoundSeconds ?? options.seconds);
      const on = await role.start(join(dir, `${role.label}-on`), true);
      const off = await role.start(join(dir, `${role.label}-off`), false);
      try {
        const scrapes: number[] = [];
        const round = async (subject: Subject, scraped: boolean) => {
          await subject.beforeRound();
          const scraper = scraped ? scrapeEverySecond(subject, scrapes) : undefined;
          try {
            return await wrk(subject.url, { connections, seconds, ...(subject.script === undefined ? {} : { script: subject.script }), ...(subject.prefix === undefined ? {} : { prefix: subject.prefix }) });
          } finally {
            await scraper?.stop();
          }
        };
        await round(on, false);
        await round(off, false);
        const onResults: LoadResult[] = [];
        const offResults: LoadResult[] = [];
        for (let index = 0; index < options.rounds; index++) {
          // A then B, then B then A: neither always goes first after the other's load.
          if (index % 2 === 0) {
            onResults.push(await round(on, true));
            offResults.push(await round(off, false));
          } else {
            offResults.push(await round(off, false));
            onResults.push(await round(on, true));
          }
        }
        loads.push(loadavg().map((value) => value.toFixed(2)).join(' '));
        const rate = (results: LoadResult[]) => median(results.map((result) => result.requestsPerSecond));
        const errors = (results: LoadResult[]) => results.reduce((sum, result) => sum + result.errors, 0);
        const cost = 1 - rate(onResults) / rate(offResults);
        rows.push(
          [`${role.label}, metrics off`, rate(offResults), median(offResults.map((result) => result.latencyP99Ms)), errors(offResults), offResults.map((result) => Math.round(result.requestsPerSecond)).join(' '), ''],
          [`${role.label}, metrics on, scraped at 1 Hz`, rate(onResults), median(onResults.map((result) => result.latencyP99Ms)), errors(onResults), onResults.map((result) => Math.round(result.requestsPerSecond)).join(' '), `${(cost * 100).toFixed(1)}%`],
        );
        const scrapeMs = median(scrapes);
        verdicts.push(`${role.label}: ${(cost * 100).toFixed(1)}% fewer req/s with metrics on and scraped (target: under 2%) -> ${verdict(cost < 0.02)}; ${scrapes.length} scrapes under load, median ${scrapeMs.toFixed(1)} ms${errors(onResults) + errors(offResults) > 0 ? '; INVALID: errors or non-2xx answers' : ''}`);
      } finally {
        await on.stop();
        await off.stop();
      }
    }
    printTable(
      `metrics-cost: wrk -t1 -c${connections}, ${options.rounds} alternating rounds of up to ${options.seconds}s each, median; load average (1, 5, 15 min) ${loads.join(' -> ')}`,
      ['case', 'req/s', 'p99 ms', 'errors', 'every round', 'cost'],
      rows,
    );
    for (const line of verdicts) console.log(line);
  } finally {
    await backend.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

function roleCases(backendAddress: string): RoleCase[] {
  return [
    {
      label: 'qpool-serve',
      // 64 connections take well under 100,000 values in 2 s on this kind of machine; the pool is refilled before each round.
      maxRoundSeconds: 2,
      async start(dir, metricsOn) {
        await mkdir(dir, { recursive: true, mode: 0o700 });
        const feed = await ValueFeed.create(dir);
        const port = await reservePort('127.0.0.1');
        const host = await startOutpost(dir, metricsOn, { recv: { server: { listen: formatHostPort('127.0.0.1', port), receive_command: feed.receiveCommand(), max_entries: poolCapacity } } }, `http://127.0.0.1:${port}/readyz`);
        const url = `http://127.0.0.1:${port}/`;
        return {
          url: `${url}api/random/hex`,
          metricsUrl: `${url}metrics`,
          metricsHeaders: {},
          async beforeRound() {
            const { available } = (await (await fetch(`${url}api/status`)).json()) as { available: number };
            await feed.send(sliceValues(randomBytes((poolCapacity - available) * 128), 'legacy', new Date()).lines);
            for (const deadline = Date.now() + 60_000; ((await (await fetch(`${url}api/status`)).json()) as { available: number }).available < poolCapacity; ) {
              if (Date.now() > deadline) throw new Error('qpool-serve: the pool did not fill');
              await sleep(50);
            }
          },
          async stop() {
            await host.stop();
            await feed.close();
          },
        };
      },
    },
    {
      label: 'cert-fetch',
      async start(dir, metricsOn) {
        await fillDataDir(dir, certDomains);
        await writeCerthubConfig(dir, 'example.com', { metrics_token: metricsToken });
        const port = await reservePort('127.0.0.1');
        const credentials = Array.from({ length: 16 }, (_, index) => credential(dir, `d${Math.floor((index * certDomains) / 16)}.example.com`));
        const last = credentials.at(-1)!;
        const url = `http://127.0.0.1:${port}/`;
        const host = await startOutpost(dir, metricsOn, { cert: { data_dir: dir, demo: true, bind: '127.0.0.1', port } }, `${url}api/cert/${last.name}`, { authorization: `Bearer ${last.token}` });
        const script = join(dir, 'rotate-tokens.lua');
        await writeFile(script, luaRotation(credentials, ({ name }) => `/api/cert/${name}`));
        return { url, script, metricsUrl: `${url}metrics`, metricsHeaders: { authorization: `Bearer ${metricsToken}` }, beforeRound: () => Promise.resolve(), stop: () => host.stop() };
      },
    },
    {
      label: 'agent-proxy',
      async start(dir, metricsOn) {
        const material = materialPaths(join(dir, 'material'), proxyDomain);
        await mkdir(material.folder, { recursive: true, mode: 0o700 });
        await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', material.key, '-out', material.fullchain, '-days', '2', '-subj', `/CN=${proxyDomain}`, '-addext', `subjectAltName=DNS:${proxyDomain}`]);
        // A route's name has two labels at least (localhost is refused), and wrk sends the URL's host
        // as SNI: wrk runs in a mount namespace whose /etc/hosts puts the name on loopback (needs root).
        const hosts = join(dir, 'hosts');
        await writeFile(hosts, `127.0.0.1 localhost ${proxyDomain}\n`);
        const [port, metricsPort] = [await reservePort('127.0.0.1'), await reservePort('127.0.0.1')];
        const proxy = { server: 'https://certhub.invalid/', fetch: false, routes: { [proxyDomain]: { backend: backendAddress, token: 'unused' } }, host: '127.0.0.1', port, threads: 1, material_dir: join(dir, 'material'), metrics_port: metricsPort };
        const host = await startOutpost(dir, metricsOn, { proxy }, `http://127.0.0.1:${metricsPort}/readyz`);
        return {
          url: `https://${proxyDomain}:${port}/`,
          prefix: ['unshare', '-m', 'sh', '-c', `mount --bind ${hosts} /etc/hosts && exec "$@"`, 'sh'],
          metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
          metricsHeaders: {},
          beforeRound: () => Promise.resolve(),
          stop: () => host.stop(),
        };
      },
    },
  ];
}

/** `outpost run` on `roles`, metrics pushed every second or off; resolves once `readyUrl` answers 200. */
async function startOutpost(dir: string, metricsOn: boolean, roles: object, readyUrl: string, headers: Record<string, string> = {}): Promise<{ stop(): Promise<void> }> {
  const file = join(dir, 'host.json');
  await writeFile(file, JSON.stringify({ roles, supervisor: { metrics_interval_ms: metricsOn ? 1000 : 0 }, log: { level: 'warn' } }));
  const child = spawn(process.execPath, [new URL('dist/bin/outpost.js', projectRoot).pathname, 'run', '-c', file], { stdio: ['ignore', 'ignore', 'inherit'] });
  const stop = () => stopChild(child);
  for (const deadline = Date.now() + 60_000; ; await sleep(100)) {
    if (child.exitCode !== null) throw new Error(`outpost run on ${file} exited with ${child.exitCode}`);
    const status = await fetch(readyUrl, { headers }).then((response) => response.arrayBuffer().then(() => response.status), () => 0);
    if (status === 200) return { stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`outpost run on ${file}: ${readyUrl} did not answer 200 within 60 s`);
    }
  }
}

/** GET /metrics once a second, as Prometheus would, recording each scrape's milliseconds, until stopped. */
function scrapeEverySecond(subject: Subject, scrapes: number[]): { stop(): Promise<void> } {
  let running = true;
  const loop = (async () => {
    while (running) {
      const startedAt = performance.now();
      const response = await fetch(subject.metricsUrl, { headers: subject.metricsHeaders });
      const text = await response.text();
      if (response.status !== 200 || !text.includes('outpost_')) throw new Error(`${subject.metricsUrl} answered ${response.status}`);
      scrapes.push(performance.now() - startedAt);
      await sleep(Math.max(0, 1000 - (performance.now() - startedAt)));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
