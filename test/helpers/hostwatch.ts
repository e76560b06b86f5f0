import type { ExecutionContext } from 'ava';
import type { Snapshot } from '../../actors/monitor/sampler/protocol.js';
import { projectPath, startProcess, type RunningProcess } from './process.js';

export interface Hostwatch extends RunningProcess {
  url: string;
  snapshot(): Promise<Snapshot>;
}

/** Starts the real hostwatch binary on a free loopback port. */
export async function startHostwatch(t: ExecutionContext, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Hostwatch> {
  const running = startProcess(t, process.execPath, [projectPath('dist/bin/hostwatch.js'), '-H', '127.0.0.1', '-p', '0', ...args], env);
  const [url] = await running.waitFor(/^http:\/\/127\.0\.0\.1:\d+\/$/m);
  return {
    ...running,
    url,
    snapshot: async () => {
      const response = await fetch(`${url}api/snapshot`);
      if (response.status !== 200) throw new Error(`snapshot answered ${response.status}`);
      return (await response.json()) as Snapshot;
    },
  };
}

/** Polls snapshots until `accept` returns true for one; returns it. */
export async function snapshotWhere(host: Hostwatch, accept: (snapshot: Snapshot) => boolean, timeoutMs = 15_000): Promise<Snapshot> {
  const deadline = Date.now() + timeoutMs;
  let last: Snapshot | undefined;
  while (Date.now() < deadline) {
    last = await host.snapshot();
    if (accept(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`no snapshot matched within ${timeoutMs}ms; the last one:\n${JSON.stringify(last, null, 1).slice(0, 4000)}`);
}
