import type { ExecutionContext } from 'ava';
import { projectPath, startProcess, type RunningProcess } from './process.js';

export interface FixtureHost extends RunningProcess {
  /** The first front's base URL, ending in a slash. */
  url: string;
  startupMs: number;
}

/** Starts test/fixtures/fixture-host.ts with a scenario. */
export function startFixtureProcess(t: ExecutionContext, scenario: object = {}, nodeBinary = process.execPath): RunningProcess {
  return startProcess(t, nodeBinary, [projectPath('dist/test/fixtures/fixture-host.js'), JSON.stringify(scenario)]);
}

/** Starts the fixture host and waits until its fronts listen. */
export async function startFixtureHost(t: ExecutionContext, scenario: object = {}, nodeBinary = process.execPath): Promise<FixtureHost> {
  const running = startFixtureProcess(t, scenario, nodeBinary);
  const [line] = await running.waitFor(/^\{"urls".*$/m);
  const { urls, startupMs } = JSON.parse(line) as { urls: string[]; startupMs: number };
  const url = urls[0];
  if (url === undefined) throw new Error('the fixture host reported no URL');
  return { ...running, url, startupMs };
}

/** Polls `probe` until it returns true or `timeoutMs` passes. */
export async function eventually(probe: () => Promise<boolean>, timeoutMs = 10_000, intervalMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return true;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return false;
}
