// cert-issue: certhub issuing on the real stack the tests use, Pebble (validating through PowerDNS)
// and PowerDNS (records and challenges), with the propagation check on (at PowerDNS, the zone's
// nameserver). Measured from the admin API: the POST of a domain to its status `issued` (polled every
// 20 ms), one domain at a time over the rounds, then 50 domains added at once (8 POSTs in flight at a
// time) until all are issued.
// Anchor in the same run, on the same stack: lego (Debian `lego`, `--dns pdns`) issuing one name.
// lego checks propagation at the zone's authoritative servers by dialing their names on port 53,
// which a PowerDNS on a free loopback port cannot be, so it runs with `--dns.disable-cp`: its check
// is then one query to its resolver (that PowerDNS). lego sleeps one polling interval before that
// query and between queries: it runs with the shortest interval it accepts (legoTuning), as a user
// who wants issuance fast sets it.
// The ACME accounts are made before the rounds (a warm-up issuance each), so neither side counts one.
// Targets: one name, median under 1.5 s; 50 at once, all issued in under 15 s.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { PebbleServer } from './third-party/pebble.js';
import type { PowerDnsServer } from './third-party/powerdns.js';
import { addDomain, listDomains, startCertStack, type CertStack, type CerthubServer, type DomainView } from './certhub-server.js';
import { ensureTools, median, printTable, verdict } from './harness.js';
import { figure, ratio, summaryRow } from './summary-table.js';

const run = promisify(execFile);
const batchSize = 50;
const pollMs = 20;
const concurrentAdds = 8;
/** Well past the targets: long enough for a retry or two after a failure. */
const settleTimeoutMs = 60_000;
/**
 * lego's pdns provider reads PDNS_POLLING_INTERVAL in whole seconds and takes 0; a negative or
 * unreadable value falls back to its default, 2 s (lego's platform/config/env GetOrDefaultSecond).
 */
const legoTuning = { PDNS_POLLING_INTERVAL: '0' };
const legoSetting = Object.entries(legoTuning)
  .map(([name, value]) => `${name}=${value}`)
  .join(' ');

export async function certIssueBenchmark(options: { rounds: number }): Promise<void> {
  await ensureTools(['lego']);
  const dir = await mkdtemp(join(tmpdir(), 'certhub-issue-bench-'));
  let stack: CertStack | undefined;
  try {
    stack = await startCertStack(dir);
    const { powerdns, pebble, certhub } = stack;
    const lego = legoRunner(dir, powerdns, pebble);

    // Domains seen in `error` (and retried), with the last reason seen.
    const errorsSeen = new Map<string, string>();
    await issueOne(certhub, 'warmup', errorsSeen);
    await lego('lego-warmup');
    const loadBefore = loadavg()[0] ?? 0;
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let round = 0; round < options.rounds; round++) {
      ours.push(await issueOne(certhub, `one-${round}`, errorsSeen));
      theirs.push(await lego(`lego-${round}`));
    }
    const { addedMs, issuedMs: batchMs, unsettled } = await issueBatch(certhub, errorsSeen);
    const loadAfter = loadavg()[0] ?? 0;

    const oursMs = median(ours);
    const legoMs = median(theirs);
    printTable(
      `cert-issue: Pebble + PowerDNS, propagation checked at PowerDNS, ${options.rounds} rounds, median (Node ${process.versions.node}, ${availableParallelism()} CPUs, load average ${loadBefore.toFixed(1)} at the start, ${loadAfter.toFixed(1)} at the end)`,
      ['case', 'ms', 'every round, ms', 'ratio to lego'],
      [
        [`lego run --dns pdns (${legoSetting}), one name (anchor)`, legoMs, theirs.map((ms) => ms.toFixed(0)).join(' '), 1],
        ['certhub, one domain: POST to issued', oursMs, ours.map((ms) => ms.toFixed(0)).join(' '), oursMs / legoMs],
        [
          `certhub, ${batchSize} domains added at once (${concurrentAdds} POSTs at a time): first POST to all issued`,
          unsettled.length === 0 ? batchMs : `${batchSize - unsettled.length} of ${batchSize} issued after ${batchMs.toFixed(0)}`,
          `all added in ${addedMs.toFixed(0)}`,
          unsettled.length === 0 ? batchMs / legoMs : '-',
        ],
      ],
    );
    summaryRow({
      benchmark: `cert-issue: one domain, POST to issued, on Pebble + PowerDNS (median of ${options.rounds})`,
      ours: `${figure(oursMs)} ms`,
      anchor: `lego \`run --dns pdns\` (${legoSetting}) for one name on the same stack`,
      anchorFigure: `${figure(legoMs)} ms`,
      ratio: ratio(oursMs, legoMs),
    });
    summaryRow({
      benchmark: `cert-issue: ${batchSize} domains added at once, first POST to all issued`,
      ours: unsettled.length === 0 ? `${figure(batchMs)} ms` : `${batchSize - unsettled.length} of ${batchSize} issued after ${figure(batchMs)} ms`,
      anchor: `lego (${legoSetting}) for one name (above)`,
      anchorFigure: `${figure(legoMs)} ms`,
      ratio: unsettled.length === 0 ? ratio(batchMs, legoMs) : '-',
    });
    console.log(
      `one domain: median ${oursMs.toFixed(0)} ms (target: under 1,500 ms) -> ${verdict(oursMs < 1500)}; lego (${legoSetting}) ${legoMs.toFixed(0)} ms`,
    );
    if (errorsSeen.size > 0)
      console.log(
        `${errorsSeen.size} domains went through error and were retried: ${[...errorsSeen].map(([name, reason]) => `${name} (${reason})`).join('; ')}`,
      );
    const batchFigure = unsettled.length === 0 ? `${batchMs.toFixed(0)} ms` : `not all issued after ${batchMs.toFixed(0)} ms: ${describe(unsettled)}`;
    console.log(`${batchSize} domains at once: ${batchFigure} (target: under 15,000 ms) -> ${verdict(unsettled.length === 0 && batchMs < 15_000)}`);
  } catch (error) {
    if (stack !== undefined) console.error(`certhub log:\n${stack.certhub.log()}`);
    throw error;
  } finally {
    await stack?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Milliseconds from the POST of `label` to its status `issued`. */
async function issueOne(certhub: CerthubServer, label: string, errorsSeen: Map<string, string>): Promise<number> {
  const startedAt = performance.now();
  const added = await addDomain(certhub, label, '203.0.113.10');
  const unsettled = await settle(async () => [await domain(certhub, added.name)], errorsSeen);
  if (unsettled.length > 0) throw new Error(`${label} not issued after ${settleTimeoutMs} ms: ${describe(unsettled)}`);
  return performance.now() - startedAt;
}

/**
 * Milliseconds from the first of `batchSize` POSTs to all of them `issued`. The POSTs go
 * `concurrentAdds` at a time: the admin API holds one of a client's 10 failed-login allowances for
 * each request while it is answered, so more at once would be refused with 429.
 */
async function issueBatch(certhub: CerthubServer, errorsSeen: Map<string, string>): Promise<{ addedMs: number; issuedMs: number; unsettled: DomainView[] }> {
  const startedAt = performance.now();
  const labels = Array.from({ length: batchSize }, (_, index) => index);
  const added: DomainView[] = [];
  const sender = async () => {
    for (let index = labels.shift(); index !== undefined; index = labels.shift())
      added.push(await addDomain(certhub, `batch-${index}`, `203.0.113.${100 + index}`));
  };
  await Promise.all(Array.from({ length: concurrentAdds }, sender));
  const addedMs = performance.now() - startedAt;
  const names = new Set(added.map((entry) => entry.name));
  const unsettled = await settle(async () => (await listDomains(certhub)).filter((entry) => names.has(entry.name)), errorsSeen);
  return { addedMs, issuedMs: performance.now() - startedAt, unsettled };
}

/**
 * Polls until every domain `read` returns is issued, noting each error seen on the way (`error` is
 * not final: the domain is retried after its backoff); the domains not issued at the timeout.
 */
async function settle(read: () => Promise<DomainView[]>, errorsSeen: Map<string, string>): Promise<DomainView[]> {
  const deadline = performance.now() + settleTimeoutMs;
  for (;;) {
    const domains = await read();
    for (const entry of domains) if (entry.status === 'error') errorsSeen.set(entry.name, entry.error ?? 'no reason');
    const unsettled = domains.filter((entry) => entry.status !== 'issued');
    if (unsettled.length === 0 || performance.now() > deadline) return unsettled;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

function describe(domains: DomainView[]): string {
  return domains.map((entry) => `${entry.name} ${entry.status}${entry.error === null ? '' : ` (${entry.error})`}`).join(', ');
}

async function domain(certhub: CerthubServer, name: string): Promise<DomainView> {
  const response = await certhub.admin(`api/admin/domains/${name}`);
  if (!response.ok) throw new Error(`GET ${name}: HTTP ${response.status} ${await response.text()}`);
  return (await response.json()) as DomainView;
}

/** A function that runs lego for one name (one account folder for all runs) and returns its wall milliseconds. */
function legoRunner(dir: string, powerdns: PowerDnsServer, pebble: PebbleServer): (label: string) => Promise<number> {
  const env = { ...process.env, PDNS_API_URL: powerdns.apiUrl, PDNS_API_KEY: powerdns.apiKey, LEGO_CA_CERTIFICATES: pebble.caFile, ...legoTuning };
  return async (label) => {
    const args = [
      '--server',
      pebble.directoryUrl,
      '--dns',
      'pdns',
      '--dns.resolvers',
      powerdns.nameserver,
      '--dns.disable-cp',
      '--email',
      'x@example.test',
      '--accept-tos',
    ];
    const startedAt = performance.now();
    await run('lego', [...args, '--domains', `${label}.${powerdns.zone}`, '--path', join(dir, 'lego'), 'run'], { env, maxBuffer: 1 << 20 });
    return performance.now() - startedAt;
  };
}
