// cert-store: certhub's domain store at 10,000 domains, each with a record and material (certificate,
// two-certificate chain, key). Measures the load a restart does (target: serving 10,000 domains in
// under 2 s overall, so the load must be a fraction of that), the memory the loaded domains take
// (target for the whole process: RSS under 200 MB), and the cost of one change with 10 and with
// 10,000 domains (it must not grow). Anchor: reading the same files without parsing them.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createDemoCertificate } from '../actors/cert/domains/demo-certificate.js';
import type { Material } from '../actors/cert/acme/protocol.js';
import { newDomainRecord } from '../actors/cert/domains/record.js';
import { withRenewalPlanned } from '../actors/cert/domains/renewal-plan.js';
import { DomainStore } from '../actors/cert/domains/store.js';
import { newDomainToken } from '../actors/cert/domains/token.js';
import { median, printTable, verdict } from './harness.js';
import { figure, ratio, summaryRow } from './summary-table.js';

const run = promisify(execFile);
const domainCount = 10_000;
const distinctMaterials = 64;

interface LoadFigures {
  ms: number;
  cpuMs: number;
  domains: number;
  heapBytes: number;
  rssBytes: number;
}

/** Lays out `count` issued domains as the store writes them (without fsync: this is setup, not measured). */
export async function fillDataDir(dataDir: string, count: number): Promise<number> {
  const chainParts = await Promise.all([
    createDemoCertificate('intermediate.example', { now: Date.now() }),
    createDemoCertificate('root.example', { now: Date.now() }),
  ]);
  const chain = chainParts.map((part) => part.cert_pem).join('');
  const materials: Material[] = [];
  for (let i = 0; i < distinctMaterials; i++) materials.push({ ...(await createDemoCertificate(`d${i}.example.com`, { now: Date.now() })), chain_pem: chain });
  const domainsDir = join(dataDir, 'domains');
  mkdirSync(domainsDir, { recursive: true, mode: 0o700 });
  for (let i = 0; i < count; i++) {
    const record = newDomainRecord(
      { name: `d${i}.example.com`, label: `d${i}`, target: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, record_type: 'A', token: newDomainToken() },
      Date.now(),
    );
    const issued = { ...record, status: 'issued' as const, issued_at: record.created_at, expires_at: new Date(Date.now() + 90 * 86_400_000).toISOString() };
    const material = materials[i % distinctMaterials]!;
    // Renewal planned, as certhub records it when a certificate is issued.
    const renewal = withRenewalPlanned(issued, material).renewal;
    writeFileSync(
      join(domainsDir, `${record.name}.json`),
      `${JSON.stringify({ record: { ...issued, renewal }, material: { cert_pem: material.cert_pem, chain_pem: material.chain_pem, key_pem: material.key_pem } })}\n`,
      { mode: 0o600 },
    );
  }
  const first = materials[0]!;
  return first.cert_pem.length + first.chain_pem.length + first.key_pem.length;
}

async function load(dataDir: string, mode: 'store' | 'raw'): Promise<LoadFigures> {
  const script = new URL('./hosts/cert-store-load.js', import.meta.url).pathname;
  const { stdout } = await run(process.execPath, ['--expose-gc', script, dataDir, mode]);
  return JSON.parse(stdout) as LoadFigures;
}

/** Median milliseconds of one record write (atomic, fsync'd) in a store holding the data dir's domains. */
async function changeCost(dataDir: string, writes: number): Promise<number> {
  const { store, loaded } = await DomainStore.open(dataDir);
  const first = [...loaded.domains.values()][0]!;
  const times: number[] = [];
  for (let i = 0; i < writes; i++) {
    const startedAt = performance.now();
    await store.write({ ...first, record: { ...first.record, target: `192.0.2.${i % 250}` } });
    times.push(performance.now() - startedAt);
  }
  return median(times);
}

export async function certStoreBenchmark(options: { rounds: number }): Promise<void> {
  const big = await mkdtemp(join(tmpdir(), 'certhub-bench-'));
  const small = await mkdtemp(join(tmpdir(), 'certhub-bench-'));
  try {
    const materialBytes = await fillDataDir(big, domainCount);
    await fillDataDir(small, 10);
    const store: LoadFigures[] = [];
    const raw: LoadFigures[] = [];
    for (let round = 0; round < options.rounds; round++) {
      raw.push(await load(big, 'raw'));
      store.push(await load(big, 'store'));
    }
    const storeMs = median(store.map((figures) => figures.ms));
    const rawMs = median(raw.map((figures) => figures.ms));
    const storeCpuMs = median(store.map((figures) => figures.cpuMs));
    const rawCpuMs = median(raw.map((figures) => figures.cpuMs));
    const heapMb = median(store.map((figures) => figures.heapBytes)) / 1e6;
    const rssMb = median(store.map((figures) => figures.rssBytes)) / 1e6;
    const [smallWrite, bigWrite] = [await changeCost(small, 30), await changeCost(big, 30)];
    printTable(
      `cert-store: ${domainCount.toLocaleString('en-US')} domains, material ${materialBytes} bytes each, ${options.rounds} rounds, median (Node ${process.versions.node})`,
      ['measure', 'value', 'ratio'],
      [
        ['read the files only, ms (anchor)', rawMs, 1],
        ['DomainStore.open, ms', storeMs, storeMs / rawMs],
        ['read the files only, CPU ms (anchor)', rawCpuMs, 1],
        ['DomainStore.open, CPU ms', storeCpuMs, storeCpuMs / rawCpuMs],
        ['heap held by the loaded domains, MB', heapMb, ''],
        ['process RSS after the load, MB', rssMb, ''],
        ['one change with 10 domains, ms', smallWrite, 1],
        [`one change with ${domainCount.toLocaleString('en-US')} domains, ms`, bigWrite, bigWrite / smallWrite],
      ],
    );
    summaryRow({
      benchmark: `cert-store: \`DomainStore.open\` of ${figure(domainCount)} domains (median of ${options.rounds})`,
      ours: `${figure(storeMs)} ms, ${figure(storeCpuMs)} ms CPU; ${figure(heapMb, 1)} MB of heap, ${figure(rssMb)} MB RSS`,
      anchor: 'reading the same files, nothing parsed',
      anchorFigure: `${figure(rawMs)} ms, ${figure(rawCpuMs)} ms CPU`,
      ratio: `${ratio(storeMs, rawMs)} (CPU ${ratio(storeCpuMs, rawCpuMs)})`,
    });
    summaryRow({
      benchmark: `cert-store: one domain changed and written with ${figure(domainCount)} domains`,
      ours: `${figure(bigWrite)} ms`,
      anchor: 'the same change with 10 domains',
      anchorFigure: `${figure(smallWrite)} ms`,
      ratio: ratio(bigWrite, smallWrite),
    });
    // Wall time on a shared machine includes waiting for a core; CPU time is what the load costs.
    console.log(
      `load of ${domainCount} domains: ${storeMs.toFixed(0)}ms wall, ${storeCpuMs.toFixed(0)}ms CPU (budget: well under the 2 s restart target) -> ${verdict(storeMs < 1000)}`,
    );
    console.log(`RSS with ${domainCount} domains loaded: ${rssMb.toFixed(0)} MB (target for the whole process: under 200 MB)`);
  } finally {
    await Promise.all([rm(big, { recursive: true, force: true }), rm(small, { recursive: true, force: true })]);
  }
}
