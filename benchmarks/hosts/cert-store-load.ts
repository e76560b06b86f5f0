// Loads a certhub data directory in a fresh process (run with --expose-gc) and prints one JSON line:
// how long the load took (wall and CPU time) and what the loaded domains cost in memory. Mode `raw` only reads the same
// files, as the anchor.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DomainStore } from '../../actors/cert/domains/store.js';

const [dataDir, mode] = process.argv.slice(2);
if (dataDir === undefined || (mode !== 'store' && mode !== 'raw')) throw new Error('usage: cert-store-load.js DATA_DIR store|raw');
const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) throw new Error('run with --expose-gc');

collect();
const heapBefore = process.memoryUsage().heapUsed;
const startedAt = performance.now();
const cpuBefore = process.cpuUsage();
let kept: unknown;
let domains = 0;
if (mode === 'store') {
  const { loaded } = await DomainStore.open(dataDir);
  kept = loaded.domains;
  domains = loaded.domains.size;
  if (loaded.problems.length > 0) throw new Error(loaded.problems.join('\n'));
} else {
  const root = join(dataDir, 'domains');
  const texts: string[] = [];
  for (const file of readdirSync(root)) {
    texts.push(readFileSync(join(root, file), 'utf8'));
    domains++;
  }
  kept = texts;
}
const ms = performance.now() - startedAt;
const cpu = process.cpuUsage(cpuBefore);
const cpuMs = (cpu.user + cpu.system) / 1000;
collect();
const heapBytes = process.memoryUsage().heapUsed - heapBefore;
process.stdout.write(`${JSON.stringify({ ms, cpuMs, domains, heapBytes, rssBytes: process.memoryUsage().rss, kept: kept !== undefined })}\n`);
