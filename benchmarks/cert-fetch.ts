// cert-fetch: certhub with 10,000 issued domains (demo certificates; the files laid out as its store
// writes them, as in cert-store). Measured:
// - restart: spawn to the URL printed, and spawn to the first 200 for the last domain with its token
//   (the fronts answer from the replica the domains actor pushes, so this is when all are served);
// - memory: RSS of the certhub process serving the 10,000, beside an empty certhub;
// - GET /api/cert/<domain> with valid tokens (wrk -t1 -c64, a Lua script rotating over 16 domains'
//   tokens), next to the same front's ceiling, GET /api/version (a constant JSON) sent by the same
//   kind of script with the same headers, in the same rounds.
// Targets: at least 20,000 req/s and at least half the ceiling; RSS under 200 MB; restart serving the
// 10,000 in under 2 s.
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fillDataDir } from './cert-store.js';
import { listDomains, startCerthub, writeCerthubConfig, type CerthubServer } from './certhub-server.js';
import { ensureTools, median, printTable, verdict, wrk, type LoadResult } from './harness.js';
import { figure, ratio, summaryRow } from './summary-table.js';
import { residentBytes } from './measure/proc-stat.js';

const domainCount = 10_000;
const rotated = 16;
const connections = 64;
const megabyte = 1024 * 1024;
const servingTimeoutMs = 30_000;

interface Credential {
  name: string;
  token: string;
}

export async function certFetchBenchmark(options: { seconds: number; rounds: number }): Promise<void> {
  await ensureTools(['wrk']);
  const dir = await mkdtemp(join(tmpdir(), 'certhub-fetch-bench-'));
  let server: CerthubServer | undefined;
  let empty: CerthubServer | undefined;
  try {
    const dataDir = join(dir, 'full');
    await fillDataDir(dataDir, domainCount);
    await writeCerthubConfig(dataDir, 'example.com');
    const emptyDir = join(dir, 'empty');
    await writeCerthubConfig(emptyDir, 'example.com');
    const credentials = Array.from({ length: rotated }, (_, index) => credential(dataDir, `d${Math.floor((index * domainCount) / rotated)}.example.com`));
    const last = credential(dataDir, `d${domainCount - 1}.example.com`);

    const restarts: { listeningMs: number; servingMs: number }[] = [];
    for (let round = 0; round < options.rounds; round++) {
      const startedAt = performance.now();
      const started = await startCerthub(dataDir, ['--demo']);
      await waitServing(started, last);
      restarts.push({ listeningMs: started.listeningMs, servingMs: performance.now() - startedAt });
      if (round < options.rounds - 1) await started.stop();
      else server = started;
    }
    if (server === undefined) throw new Error('--rounds must be at least 1');
    const listed = (await listDomains(server)).length;
    if (listed !== domainCount) throw new Error(`certhub lists ${listed} domains, not ${domainCount}`);
    const rssServing = residentBytes(server.pid);
    empty = await startCerthub(emptyDir, ['--demo']);
    const rssEmpty = residentBytes(empty.pid);
    await empty.stop();
    empty = undefined;

    const script = join(dir, 'rotate-tokens.lua');
    writeFileSync(
      script,
      luaRotation(credentials, ({ name }) => `/api/cert/${name}`),
    );
    const ceilingScript = join(dir, 'rotate-version.lua');
    writeFileSync(
      ceilingScript,
      luaRotation(credentials, () => '/api/version'),
    );
    const url = server.url;
    await wrk(url, { connections, seconds: 1, script: ceilingScript });
    await wrk(url, { connections, seconds: 1, script });
    const loadBefore = loadavg()[0] ?? 0;
    const ceiling: LoadResult[] = [];
    const fetches: LoadResult[] = [];
    for (let round = 0; round < options.rounds; round++) {
      ceiling.push(await wrk(url, { connections, seconds: options.seconds, script: ceilingScript }));
      fetches.push(await wrk(url, { connections, seconds: options.seconds, script }));
    }
    const rssAfterLoad = residentBytes(server.pid);
    const loadAfter = loadavg()[0] ?? 0;

    const ceilingRate = median(ceiling.map((result) => result.requestsPerSecond));
    const fetchRate = median(fetches.map((result) => result.requestsPerSecond));
    const errors = (results: LoadResult[]) => results.reduce((sum, result) => sum + result.errors, 0);
    printTable(
      `cert-fetch: certhub --demo with ${domainCount.toLocaleString('en-US')} issued domains, wrk -t1 -c${connections}, ${options.rounds} rounds of ${options.seconds}s, median (Node ${process.versions.node}, ${availableParallelism()} CPUs, load average ${loadBefore.toFixed(1)} at the start, ${loadAfter.toFixed(1)} at the end)`,
      ['case', 'req/s', 'p50 ms', 'p99 ms', 'errors + non-2xx', 'every round', 'of ceiling'],
      [
        [
          'GET /api/version, a constant, same headers (ceiling, anchor)',
          ceilingRate,
          median(ceiling.map((result) => result.latencyP50Ms)),
          median(ceiling.map((result) => result.latencyP99Ms)),
          errors(ceiling),
          ceiling.map((result) => Math.round(result.requestsPerSecond)).join(' '),
          1,
        ],
        [
          `GET /api/cert/<domain>, ${rotated} domains' tokens in turn`,
          fetchRate,
          median(fetches.map((result) => result.latencyP50Ms)),
          median(fetches.map((result) => result.latencyP99Ms)),
          errors(fetches),
          fetches.map((result) => Math.round(result.requestsPerSecond)).join(' '),
          fetchRate / ceilingRate,
        ],
      ],
    );
    const servingMs = median(restarts.map((restart) => restart.servingMs));
    const rssMb = rssServing / megabyte;
    printTable(
      `${domainCount.toLocaleString('en-US')} domains: restart and memory, ${options.rounds} restarts, median`,
      ['measure', 'value', 'every round'],
      [
        [
          'spawn to URL printed, ms',
          median(restarts.map((restart) => restart.listeningMs)),
          restarts.map((restart) => restart.listeningMs.toFixed(0)).join(' '),
        ],
        [`spawn to the last domain served with its token, ms`, servingMs, restarts.map((restart) => restart.servingMs.toFixed(0)).join(' ')],
        ['RSS of an empty certhub --demo, MB', rssEmpty / megabyte, ''],
        [`RSS serving ${domainCount.toLocaleString('en-US')} domains, MB`, rssMb, ''],
        ['the same after the wrk rounds, MB', rssAfterLoad / megabyte, ''],
      ],
    );
    const fetchP99 = median(fetches.map((result) => result.latencyP99Ms));
    summaryRow({
      benchmark: `cert-fetch: \`GET /api/cert/<domain>\` with ${rotated} domains' tokens in turn, ${figure(domainCount)} domains (wrk -t1 -c${connections}, median of ${options.rounds} x ${options.seconds} s)`,
      ours: `${figure(fetchRate)} req/s, p99 ${figure(fetchP99)} ms`,
      anchor: 'the same front answering `GET /api/version`, a constant (its ceiling)',
      anchorFigure: `${figure(ceilingRate)} req/s`,
      ratio: ratio(fetchRate, ceilingRate),
    });
    summaryRow({
      benchmark: `cert-fetch: a restart with ${figure(domainCount)} domains, spawn to the last one served, and RSS serving them (median of ${options.rounds})`,
      ours: `${figure(servingMs)} ms; ${figure(rssMb)} MB RSS`,
      anchor: 'an empty `certhub run --demo`',
      anchorFigure: `${figure(rssEmpty / megabyte)} MB RSS`,
      ratio: `${ratio(rssMb, rssEmpty / megabyte)} (RSS)`,
    });
    if (errors(fetches) > 0) console.log(`INVALID: ${errors(fetches)} fetches failed or were not 200`);
    console.log(
      `fetch: ${Math.round(fetchRate)} req/s (target: at least 20,000) -> ${verdict(fetchRate >= 20_000)}; ${((100 * fetchRate) / ceilingRate).toFixed(0)}% of the ceiling's ${Math.round(ceilingRate)} (target: at least half) -> ${verdict(fetchRate >= ceilingRate / 2)}`,
    );
    console.log(
      `${domainCount} domains: RSS ${rssMb.toFixed(0)} MB (target: under 200 MB) -> ${verdict(rssMb < 200)}; restart serving them in ${servingMs.toFixed(0)} ms (target: under 2,000 ms) -> ${verdict(servingMs < 2000)}`,
    );
  } catch (error) {
    if (server !== undefined) console.error(`certhub log:\n${server.log()}`);
    throw error;
  } finally {
    await empty?.stop();
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** A domain's name and token, read from the file the store wrote. */
export function credential(dataDir: string, name: string): Credential {
  const file = JSON.parse(readFileSync(join(dataDir, 'domains', `${name}.json`), 'utf8')) as { record: { token: string } };
  return { name, token: file.record.token };
}

/** Polls GET /api/cert/<domain> every 5 ms until it answers 200. */
async function waitServing(server: CerthubServer, domain: Credential): Promise<void> {
  const deadline = performance.now() + servingTimeoutMs;
  for (;;) {
    const response = await fetch(`${server.url}api/cert/${domain.name}`, { headers: { authorization: `Bearer ${domain.token}` } });
    await response.arrayBuffer();
    if (response.status === 200) return;
    if (performance.now() > deadline) throw new Error(`${domain.name} not served after ${servingTimeoutMs} ms: HTTP ${response.status}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * A wrk script sending `paths` in turn, each with its domain's token. The requests are formatted once,
 * in `init`, so wrk's own cost per request is the same for the fetches and for the ceiling.
 */
export function luaRotation(credentials: Credential[], path: (credential: Credential) => string): string {
  const entries = credentials
    .map((credential) => `    wrk.format("GET", ${JSON.stringify(path(credential))}, { ["Authorization"] = ${JSON.stringify(`Bearer ${credential.token}`)} }),`)
    .join('\n');
  return `local requests = {}
init = function(args)
  requests = {
${entries}
  }
end
local next_index = 0
request = function()
  next_index = next_index % #requests + 1
  return requests[next_index]
end
`;
}
