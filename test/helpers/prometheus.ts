// A real Prometheus (Debian's /usr/bin/prometheus) for a test: its config written to a temp folder,
// its storage there too, its web API on a free loopback port; stopped at teardown.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { reservePort } from '../../src/http/port.js';
import { onFreshPorts, startDaemon, waitForDaemon, type Daemon } from '../../benchmarks/third-party/daemon.js';

export interface RunningPrometheus {
  daemon: Daemon;
  url: string;
}

/** Starts Prometheus on `configText` (YAML) in `dir` and waits until it is ready. */
export async function startPrometheus(
  t: ExecutionContext,
  dir: string,
  configText: string,
  extraFiles: Record<string, string> = {},
): Promise<RunningPrometheus> {
  const configPath = join(dir, 'prometheus.yml');
  await writeFile(configPath, configText);
  for (const [name, text] of Object.entries(extraFiles)) await writeFile(join(dir, name), text);
  return onFreshPorts(async () => {
    const port = await reservePort('127.0.0.1');
    const daemon = startDaemon('prometheus', [
      `--config.file=${configPath}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ]);
    t.teardown(() => daemon.stop());
    const url = `http://127.0.0.1:${port}`;
    await waitForDaemon(daemon, 'prometheus', async () => (await fetch(`${url}/-/ready`)).ok, 30_000, 100);
    return { daemon, url };
  });
}

interface VectorSample {
  metric: Record<string, string>;
  value: [number, string];
}

/** An instant PromQL query through the HTTP API. */
export async function instantQuery(prometheus: RunningPrometheus, query: string): Promise<VectorSample[]> {
  const response = await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(query)}`);
  const body = (await response.json()) as { status: string; error?: string; data?: { resultType: string; result: VectorSample[] } };
  if (body.status !== 'success' || body.data === undefined) throw new Error(`query ${query} failed: ${body.error ?? response.status}`);
  return body.data.result;
}

/** Polls a query until it returns at least one sample that `accept` takes. */
export async function waitForQuery(
  prometheus: RunningPrometheus,
  query: string,
  accept: (samples: VectorSample[]) => boolean,
  timeoutMs = 30_000,
): Promise<VectorSample[]> {
  const deadline = Date.now() + timeoutMs;
  let last: VectorSample[] = [];
  for (;;) {
    last = await instantQuery(prometheus, query);
    if (accept(last)) return last;
    if (Date.now() > deadline)
      throw new Error(`${query} did not give the expected samples within ${timeoutMs} ms; last: ${JSON.stringify(last)}\n${prometheus.daemon.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
