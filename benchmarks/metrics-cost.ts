// metrics-cost: what a Prometheus scrape every second costs each role's hot path. For each
// of qpool-serve (GET /api/random/hex), cert-fetch (GET /api/cert/<domain> with its token) and
// agent-proxy (GET through TLS to a backend answering "ok"), `outpost run` processes with the same
// role: with metrics on (every thread pushes its figures at the shipped interval) and scraped at 1 Hz
// during their rounds, the same with that fixed work done 20 times as often (the cost scaled back,
// see Variant), and one with metrics off (supervisor.metrics_interval_ms 0: nothing is counted),
// which each "on" process is paired with; idle processes give the cost by parts. In each short
// round one wrk loads A and another B at the same time, so that whatever else the shared machine runs
// weighs on both; each round gives a cost (measure/paired-cost.ts), in requests a second and in the
// server process's CPU time per request (/proc/<pid>/stat over the wrk run: on a 2-core machine shared with
// other work it moves far less with the noise than req/s). Target: under 2%; the verdict says "cannot
// tell" when the pairs' spread is wider than the distance to it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { materialPaths } from '../actors/proxy/client/material-files.js';
import { sliceValues } from '../actors/qpool/collector/values.js';
import { reservePort } from '../src/http/port.js';
import { formatHostPort } from '../src/net/address.js';
import { credential, luaRotation } from './cert-fetch.js';
import { fillDataDir } from './cert-store.js';
import { writeCerthubConfig } from './certhub-server.js';
import { ensureTools, median, printTable, projectRoot, startServer, stopChild, wrk, type LoadResult } from './harness.js';
import { costVerdict, pairedCost, percent, type PairedCost } from './measure/paired-cost.js';
import { httpFrontCountingNanos, proxyCountingNanos } from './measure/counting-cost.js';
import { cpuSeconds } from './measure/proc-stat.js';
import { ValueFeed } from './qpool-serve/value-feed.js';
import { defaultMetricsIntervalMs } from '../src/metrics/topic.js';
import { figure, summaryRow } from './summary-table.js';
import { writeSelfSigned } from './third-party/openssl.js';

const connections = 64;
const metricsToken = 'metrics-cost-benchmark-token-0123456789';
// What one round of qpool-serve may take at most: rounds must measure serving, not refusals of an empty pool.
const poolCapacity = 400_000;
/** A feature costs less than this share of a hot path's CPU per request. */
const costTarget = 0.02;
const certDomains = 1000;
const proxyDomain = 'app.example.test';

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
  /** The outpost process, whose CPU time is read around each round. */
  pid: number;
  /** Made ready for a round (a pool refilled). */
  beforeRound(): Promise<void>;
  stop(): Promise<void>;
}

interface RoleCase {
  label: string;
  /** `pushIntervalMs` 0: metrics off. */
  start(dir: string, pushIntervalMs: number, bin: URL): Promise<Subject>;
  /** Seconds of one round at most (a pool must not run dry within it). */
  maxRoundSeconds?: number;
  /** CPU nanoseconds the front's counting adds to one request (measure/counting-cost.ts). */
  countingNanos(): number;
}

/** An outpost build measured: this one, or an earlier one's dist (`--before`), its processes' rounds interleaved with this one's. */
interface Build {
  label: string;
  bin: URL;
}

/**
 * A variant of the "on" process: how often its threads push their figures and how often it is
 * scraped. The default (the shipped push interval, a 1 Hz scrape) is what a user who turns nothing
 * gets. Its fixed work (pushes, renders, scrapes) is too small to stand out of the pairs' noise under
 * load, so the amplified variant does it `amplification` times a second as often (pushes 20 times as
 * often, scrapes at 20 Hz: the same share of scrapes that find the text rendered) and its cost is
 * scaled back: counting + (measured - counting) / amplification. The control is a second
 * metrics-off process in the "on" place: what the pairing itself gives when nothing differs (the
 * noise floor a cost must stand out of).
 */
interface Variant {
  pushIntervalMs: number;
  scrapeHz: number;
  amplification: number;
}

/** How many times as often the amplified variant pushes and scrapes; `--push-interval` is a multiple of it (the host config takes whole milliseconds). */
export const amplification = 20;
/** The variants measured when the "on" processes push every `pushIntervalMs` (the shipped default unless `--push-interval` says otherwise). */
function variantsFor(pushIntervalMs: number): Variant[] {
  return [
    { pushIntervalMs, scrapeHz: 1, amplification: 1 },
    { pushIntervalMs: pushIntervalMs / amplification, scrapeHz: amplification, amplification },
    { pushIntervalMs: 0, scrapeHz: 0, amplification: 1 },
  ];
}

/** The idle processes' push intervals (by parts): the default, and every second, the most a 1 Hz scrape can see of. */
const idleIntervals = [defaultMetricsIntervalMs, 1000];

function subjectLabel(role: string, build: string | undefined, { pushIntervalMs, scrapeHz, amplification }: Variant): string {
  const name = `${role}${build === undefined ? '' : ` (${build})`}`;
  if (pushIntervalMs === 0) return `${name}, control`;
  if (amplification > 1)
    return `${name}, pushed every ${pushIntervalMs / 1000} s, scraped at ${scrapeHz} Hz (${amplification}x the fixed work of ${(pushIntervalMs * amplification) / 1000} s pushes)`;
  return `${name}, pushed every ${pushIntervalMs / 1000} s${pushIntervalMs === defaultMetricsIntervalMs ? ' (default)' : ''}`;
}

interface Pair {
  on: Round;
  off: Round;
}

export async function metricsCostBenchmark(options: { seconds: number; rounds: number; before?: string; pushIntervalMs?: number }): Promise<void> {
  const pushIntervalMs = options.pushIntervalMs ?? defaultMetricsIntervalMs;
  const variants = variantsFor(pushIntervalMs);
  await ensureTools(['wrk']);
  const dir = await mkdtemp(join(tmpdir(), 'metrics-cost-bench-'));
  const backend = await startServer(new URL('dist/benchmarks/hosts/echo-backend.js', projectRoot));
  const builds: Build[] = [
    { label: 'this build', bin: new URL('dist/bin/outpost.js', projectRoot) },
    ...(options.before === undefined ? [] : [{ label: `before (${options.before})`, bin: pathToFileURL(join(resolve(options.before), 'bin', 'outpost.js')) }]),
  ];
  const rows: (string | number)[][] = [];
  const verdicts: string[] = [];
  const loads: string[] = [
    loadavg()
      .map((value) => value.toFixed(2))
      .join(' '),
  ];
  try {
    // METRICS_COST_CASES=cert-fetch,agent-proxy measures only those (one hot path while its cost is worked on).
    const only = process.env['METRICS_COST_CASES']?.split(',');
    for (const role of roleCases(new URL(backend.urls[0]!).host).filter(({ label }) => only === undefined || only.includes(label))) {
      const seconds = Math.min(options.seconds, role.maxRoundSeconds ?? options.seconds);
      const measured = builds.flatMap((build, index) => variants.map((variant) => ({ build, index, variant, pairs: [] as Pair[], scrapes: [] as number[] })));
      for (let round = 0; round < options.rounds; round++) {
        for (const entry of measured) {
          const { build, index, variant } = entry;
          const { pushIntervalMs, scrapeHz } = variant;
          // Fresh processes each round, started in a random order: a process's own luck (its start
          // order, where its memory landed, which core it settled on) must not follow one side
          // through every round. With one metrics-off process kept for every round, the control
          // (another metrics-off process in the "on" place) came out 58% dearer at load 15.
          const sides = await startPair(
            () => role.start(join(dir, `${role.label}-${index}-${pushIntervalMs}-${round}-on`), pushIntervalMs, build.bin),
            () => role.start(join(dir, `${role.label}-${index}-${pushIntervalMs}-${round}-off`), 0, build.bin),
          );
          try {
            const scraping = scrapeHz === 0 ? undefined : { hz: scrapeHz, scrapes: entry.scrapes };
            // A warm-up pair (JIT, caches), not counted.
            await measurePair(sides, seconds, scraping === undefined ? undefined : { hz: scrapeHz, scrapes: [] });
            entry.pairs.push(await measurePair(sides, seconds, scraping));
          } finally {
            await Promise.all([sides.on.stop(), sides.off.stop()]);
            await rm(join(dir, `${role.label}-${index}-${pushIntervalMs}-${round}-on`), { recursive: true, force: true });
            await rm(join(dir, `${role.label}-${index}-${pushIntervalMs}-${round}-off`), { recursive: true, force: true });
          }
        }
      }
      const idle = await idleCost(role, dir, builds[0]!.bin);
      const countingNanos = role.countingNanos();
      loads.push(
        loadavg()
          .map((value) => value.toFixed(2))
          .join(' '),
      );
      // This build's figures for the summary table: the amplified cost scaled back, by parts, the control.
      const headline: { scaled?: PairedCost; byParts?: number; control?: PairedCost; offCpu?: number; offRate?: number } = {};
      for (const { build, variant, pairs, scrapes } of measured) {
        const { pushIntervalMs, scrapeHz } = variant;
        const label = subjectLabel(role.label, builds.length > 1 ? build.label : undefined, variant);
        const rateCost = pairedCost(pairs.map(({ on, off }) => 1 - on.load.requestsPerSecond / off.load.requestsPerSecond));
        const cpuCost = pairedCost(pairs.map(({ on, off }) => on.cpuMicrosPerRequest / off.cpuMicrosPerRequest - 1));
        const control = pushIntervalMs === 0;
        rows.push(
          sideRow(
            `${label}: metrics off`,
            pairs.map(({ off }) => off),
          ),
          sideRow(
            `${label}: ${control ? 'metrics off too' : `metrics on, scraped at ${scrapeHz} Hz`}`,
            pairs.map(({ on }) => on),
            rateCost,
            cpuCost,
          ),
        );
        const errors = pairs.reduce((sum, { on, off }) => sum + on.load.errors + off.load.errors, 0);
        if (control) {
          if (build === builds[0]) headline.control = cpuCost;
          verdicts.push(
            `${label}: two metrics-off processes paired differ by ${percent(cpuCost.median)} [${percent(cpuCost.low)}, ${percent(cpuCost.high)}] in CPU per request, ${percent(rateCost.median)} in req/s: the bench's own noise floor`,
          );
          continue;
        }
        const offCpu = median(pairs.map(({ off }) => off.cpuMicrosPerRequest));
        if (variant.amplification > 1) {
          // Scaled back pair by pair (a linear map keeps the pairs' order, so the interval maps too).
          const counting = countingNanos / 1000 / offCpu;
          const scaled = (cost: PairedCost) => pairedCost(cost.pairs.map((pair) => counting + (pair - counting) / variant.amplification));
          const [cpuScaled, rateScaled] = [scaled(cpuCost), scaled(rateCost)];
          if (build === builds[0]) Object.assign(headline, { scaled: cpuScaled, offCpu, offRate: median(pairs.map(({ off }) => off.load.requestsPerSecond)) });
          verdicts.push(
            `${label}, scaled back to 1x: CPU per request ${percent(cpuScaled.median)} [${percent(cpuScaled.low)}, ${percent(cpuScaled.high)}] more (target: under 2%) -> ${costVerdict(cpuScaled, costTarget)}; ` +
              `req/s ${percent(rateScaled.median)} [${percent(rateScaled.low)}, ${percent(rateScaled.high)}] fewer -> ${costVerdict(rateScaled, costTarget)}; measured: CPU per request ${percent(cpuCost.median)}, req/s ${percent(rateCost.median)}; ${scrapes.length} scrapes under load, median ${median(scrapes).toFixed(1)} ms` +
              (errors > 0 ? `; INVALID: ${errors} errors or non-2xx answers` : ''),
          );
          continue;
        }
        if (build === builds[0]) {
          // By parts, for each idle push interval: the counting per request, plus the fixed work a
          // second spread over the requests the loaded server answered a second (metrics off, in
          // these rounds). The fixed part is measured idle, where every push and scrape wakes a
          // sleeping thread (on this sandbox most of it: the wake-up, code run once a second that is
          // never optimized, V8's memory-reducing GCs of idle threads); under load the busy threads
          // are awake anyway, so this errs on the costly side.
          const offRate = median(pairs.map(({ off }) => off.load.requestsPerSecond));
          for (const [interval, fixed] of idle) {
            const byParts = (countingNanos / 1000 + (fixed * 1e6) / offRate) / offCpu;
            if (interval === pushIntervalMs) headline.byParts = byParts;
            verdicts.push(
              `${subjectLabel(role.label, undefined, { pushIntervalMs: interval, scrapeHz: 1, amplification: 1 })}, by parts: counting ${countingNanos.toFixed(0)} ns a request + ${(fixed * 1000).toFixed(1)} ms of CPU a second idle (pushes, the 1 Hz scrape) over ${offRate.toFixed(0)} req/s, against ${offCpu.toFixed(1)} us a request with metrics off: ${percent(byParts)} (target: under 2%) -> ${byParts < costTarget ? 'met' : 'NOT met'}`,
            );
          }
        }
        verdicts.push(
          `${label}: CPU per request ${percent(cpuCost.median)} more with metrics on and scraped (target: under 2%) -> ${costVerdict(cpuCost, costTarget)}; ` +
            `req/s ${percent(rateCost.median)} fewer -> ${costVerdict(rateCost, costTarget)}; ${scrapes.length} scrapes under load, median ${median(scrapes).toFixed(1)} ms` +
            (errors > 0 ? `; INVALID: ${errors} errors or non-2xx answers` : ''),
        );
      }
      const { scaled, byParts, control, offCpu, offRate } = headline;
      if (scaled !== undefined && offCpu !== undefined && offRate !== undefined) {
        const interval = (cost: PairedCost | undefined) => (cost === undefined ? '-' : `${percent(cost.median)} [${percent(cost.low)}, ${percent(cost.high)}]`);
        summaryRow({
          benchmark: `metrics-cost, ${role.label}: CPU a request with metrics on (pushed every ${pushIntervalMs / 1000} s, scraped at 1 Hz), measured at ${amplification}x and scaled back (${options.rounds} pairs of ${seconds} s loaded at once)`,
          ours: `${interval(scaled)} more; by parts ${byParts === undefined ? '-' : percent(byParts)}`,
          anchor: `the same role with metrics off, loaded at the same time (two metrics-off processes paired: ${interval(control)})`,
          anchorFigure: `${figure(offCpu)} µs CPU a request, ${figure(offRate)} req/s`,
          ratio: (1 + scaled.median).toFixed(3),
        });
      }
    }
    printTable(
      `metrics-cost: wrk -t1 -c${connections}, ${options.rounds} rounds of up to ${options.seconds}s, on and off loaded at once; medians; spread = (max - min) / median of one side's rounds; cost = median of the pairs [~95% interval]; load average (1, 5, 15 min) ${loads.join(' -> ')}`,
      ['case', 'req/s', 'spread', 'CPU us/req', 'spread', 'errors', 'req/s cost', 'CPU/req cost'],
      rows,
    );
    for (const line of verdicts) console.log(line);
  } finally {
    await backend.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Seconds the idle processes settle after start (start-up's garbage collections), and are then measured over. */
const idleSettleSeconds = 15;
const idleSeconds = 30;

/**
 * The fixed CPU a second that metrics cost `role` with nobody loading it: a metrics-off process and
 * one per push interval, started together, measured over the same window, the "on" ones scraped at
 * 1 Hz. Returns push interval -> CPU seconds a second above the metrics-off process.
 */
async function idleCost(role: RoleCase, dir: string, bin: URL): Promise<Map<number, number>> {
  const intervals = idleIntervals;
  const subjects: { interval: number; subject: Subject }[] = [];
  try {
    for (const interval of [0, ...intervals])
      subjects.push({ interval, subject: await role.start(join(dir, `${role.label}-idle-${interval}`), interval, bin) });
    await sleep(idleSettleSeconds * 1000);
    const before = subjects.map(({ subject }) => cpuSeconds(subject.pid));
    const scrapers = subjects.filter(({ interval }) => interval > 0).map(({ subject }) => scrapeAt(subject, { hz: 1, scrapes: [] }));
    await sleep(idleSeconds * 1000);
    await Promise.all(scrapers.map((scraper) => scraper.stop()));
    const used = subjects.map(({ subject }, index) => (cpuSeconds(subject.pid) - before[index]!) / idleSeconds);
    return new Map(subjects.slice(1).map(({ interval }, index) => [interval, used[index + 1]! - used[0]!]));
  } finally {
    await Promise.all(subjects.map(({ subject }) => subject.stop()));
  }
}

/** Starts both sides, in a random order; if the second fails to start, the first is stopped. */
async function startPair(startOn: () => Promise<Subject>, startOff: () => Promise<Subject>): Promise<{ on: Subject; off: Subject }> {
  const onFirst = Math.random() < 0.5;
  const first = await (onFirst ? startOn() : startOff());
  const second = await (onFirst ? startOff() : startOn()).catch(async (error: unknown) => {
    await first.stop();
    throw error;
  });
  return onFirst ? { on: first, off: second } : { on: second, off: first };
}

/**
 * One round on both sides at once: whatever else the shared machine runs meanwhile weighs on both
 * alike, which back-to-back rounds cannot promise (a burst of another program's work falls in one).
 */
async function measurePair(subject: { on: Subject; off: Subject }, seconds: number, scraping: Scraping | undefined): Promise<Pair> {
  await Promise.all([subject.on.beforeRound(), subject.off.beforeRound()]);
  const [on, off] = await Promise.all([measureRound(subject.on, seconds, scraping), measureRound(subject.off, seconds)]);
  return { on, off };
}

/** wrk on `subject` for `seconds`, scraped meanwhile when `scraping` is given. */
async function measureRound(subject: Subject, seconds: number, scraping?: Scraping): Promise<Round> {
  const scraper = scraping === undefined ? undefined : scrapeAt(subject, scraping);
  try {
    const cpuBefore = cpuSeconds(subject.pid);
    const load = await wrk(subject.url, {
      connections,
      seconds,
      ...(subject.script === undefined ? {} : { script: subject.script }),
      ...(subject.prefix === undefined ? {} : { prefix: subject.prefix }),
    });
    return { load, cpuMicrosPerRequest: ((cpuSeconds(subject.pid) - cpuBefore) * 1e6) / (load.requestsPerSecond * load.seconds) };
  } finally {
    await scraper?.stop();
  }
}

function sideRow(label: string, rounds: Round[], rateCost?: PairedCost, cpuCost?: PairedCost): (string | number)[] {
  const rates = rounds.map(({ load }) => load.requestsPerSecond);
  const cpu = rounds.map(({ cpuMicrosPerRequest }) => cpuMicrosPerRequest);
  const interval = (cost: PairedCost | undefined) => (cost === undefined ? '' : `${percent(cost.median)} [${percent(cost.low)}, ${percent(cost.high)}]`);
  return [
    label,
    median(rates),
    spread(rates),
    median(cpu),
    spread(cpu),
    rounds.reduce((sum, { load }) => sum + load.errors, 0),
    interval(rateCost),
    interval(cpuCost),
  ];
}

interface Round {
  load: LoadResult;
  /** The server process's CPU time (every thread, utime + stime) over the wrk run, per request answered. */
  cpuMicrosPerRequest: number;
}

/** How far apart the rounds of one side were: (max - min) / median. */
function spread(values: number[]): string {
  return percent((Math.max(...values) - Math.min(...values)) / median(values));
}

function roleCases(backendAddress: string): RoleCase[] {
  return [
    {
      label: 'qpool-serve',
      countingNanos: httpFrontCountingNanos,
      // 64 connections take well under 400,000 values in 3 s on this kind of machine (a quiet run's
      // 11,636 refusals came from a pool of 100,000); the pool is refilled before each round.
      maxRoundSeconds: 3,
      async start(dir, pushIntervalMs, bin) {
        await mkdir(dir, { recursive: true, mode: 0o700 });
        const feed = await ValueFeed.create(dir);
        const port = await reservePort('127.0.0.1');
        const host = await startOutpost(
          bin,
          dir,
          pushIntervalMs,
          { recv: { server: { listen: formatHostPort('127.0.0.1', port), receive_command: feed.receiveCommand(), max_entries: poolCapacity } } },
          `http://127.0.0.1:${port}/readyz`,
        );
        const url = `http://127.0.0.1:${port}/`;
        return {
          pid: host.pid,
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
      countingNanos: httpFrontCountingNanos,
      async start(dir, pushIntervalMs, bin) {
        await fillDataDir(dir, certDomains);
        await writeCerthubConfig(dir, 'example.com', { metrics_token: metricsToken });
        const port = await reservePort('127.0.0.1');
        const credentials = Array.from({ length: 16 }, (_, index) => credential(dir, `d${Math.floor((index * certDomains) / 16)}.example.com`));
        const last = credentials.at(-1)!;
        const url = `http://127.0.0.1:${port}/`;
        const host = await startOutpost(
          bin,
          dir,
          pushIntervalMs,
          { cert: { data_dir: dir, demo: true, bind: '127.0.0.1', port } },
          `${url}api/cert/${last.name}`,
          { authorization: `Bearer ${last.token}` },
        );
        const script = join(dir, 'rotate-tokens.lua');
        await writeFile(
          script,
          luaRotation(credentials, ({ name }) => `/api/cert/${name}`),
        );
        return {
          pid: host.pid,
          url,
          script,
          metricsUrl: `${url}metrics`,
          metricsHeaders: { authorization: `Bearer ${metricsToken}` },
          beforeRound: () => Promise.resolve(),
          stop: () => host.stop(),
        };
      },
    },
    {
      label: 'agent-proxy',
      countingNanos: proxyCountingNanos,
      async start(dir, pushIntervalMs, bin) {
        const material = materialPaths(join(dir, 'material'), proxyDomain);
        await mkdir(material.folder, { recursive: true, mode: 0o700 });
        await writeSelfSigned({
          keyFile: material.key,
          certFile: material.fullchain,
          subject: `/CN=${proxyDomain}`,
          extensions: [`subjectAltName=DNS:${proxyDomain}`],
        });
        // A route's name has two labels at least (localhost is refused), and wrk sends the URL's host
        // as SNI: wrk runs in a mount namespace whose /etc/hosts puts the name on loopback (needs root).
        const hosts = join(dir, 'hosts');
        await writeFile(hosts, `127.0.0.1 localhost ${proxyDomain}\n`);
        const [port, metricsPort] = [await reservePort('127.0.0.1'), await reservePort('127.0.0.1')];
        const proxy = {
          server: 'https://certhub.invalid/',
          fetch: false,
          routes: { [proxyDomain]: { backend: backendAddress, token: 'unused' } },
          host: '127.0.0.1',
          port,
          threads: 1,
          material_dir: join(dir, 'material'),
          metrics_port: metricsPort,
        };
        const host = await startOutpost(bin, dir, pushIntervalMs, { proxy }, `http://127.0.0.1:${metricsPort}/readyz`);
        return {
          pid: host.pid,
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

/** `bin` (an outpost build's) `run` on `roles`, metrics pushed every `pushIntervalMs` or off (0); resolves once `readyUrl` answers 200. */
async function startOutpost(
  bin: URL,
  dir: string,
  pushIntervalMs: number,
  roles: object,
  readyUrl: string,
  headers: Record<string, string> = {},
): Promise<{ pid: number; stop(): Promise<void> }> {
  const file = join(dir, 'host.json');
  await writeFile(file, JSON.stringify({ roles, supervisor: { metrics_interval_ms: pushIntervalMs }, log: { level: 'warn' } }), { mode: 0o600 });
  const child = spawn(process.execPath, [bin.pathname, 'run', '-c', file], { stdio: ['ignore', 'ignore', 'inherit'] });
  const stop = () => stopChild(child);
  for (const deadline = Date.now() + 60_000; ; await sleep(100)) {
    if (child.exitCode !== null) throw new Error(`outpost run on ${file} exited with ${child.exitCode}`);
    const status = await fetch(readyUrl, { headers }).then(
      (response) => response.arrayBuffer().then(() => response.status),
      () => 0,
    );
    if (status === 200) return { pid: child.pid!, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`outpost run on ${file}: ${readyUrl} did not answer 200 within 60 s`);
    }
  }
}

/** How often a round scrapes /metrics, and where each scrape's milliseconds go. */
interface Scraping {
  hz: number;
  scrapes: number[];
}

/** GET /metrics `hz` times a second (once, as Prometheus would at a 1 s scrape interval), recording each scrape's milliseconds, until stopped. */
function scrapeAt(subject: Subject, { hz, scrapes }: Scraping): { stop(): Promise<void> } {
  const periodMs = 1000 / hz;
  let running = true;
  const loop = (async () => {
    while (running) {
      const startedAt = performance.now();
      const response = await fetch(subject.metricsUrl, { headers: subject.metricsHeaders });
      const text = await response.text();
      if (response.status !== 200 || !text.includes('outpost_')) throw new Error(`${subject.metricsUrl} answered ${response.status}`);
      scrapes.push(performance.now() - startedAt);
      await sleep(Math.max(0, periodMs - (performance.now() - startedAt)));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
    },
  };
}
