// `outpost run` as a test starts it: a host config written to a temp folder, the process started,
// and the URL of each role's front read from what it prints.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import type { ActorStatus, SupervisorStatus } from '../../src/actor/actor-status.js';
import { projectPath, runToEnd, startProcess, type RunningProcess } from './process.js';

export const outpostBin = projectPath('dist/bin/outpost.js');

export interface RunningOutpost {
  process: RunningProcess;
  dir: string;
  configPath: string;
  /** The fronts' base URLs, ending in a slash, in the order printed. */
  urls: string[];
}

export async function outpostDir(t: ExecutionContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'outpost-ops-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Starts `outpost run` (or the program `bin`, built as outpost is) on `config` (written to `dir`) and waits for its `fronts` URLs. */
export async function startOutpost(
  t: ExecutionContext,
  dir: string,
  config: object,
  fronts = 1,
  env: NodeJS.ProcessEnv = {},
  bin = outpostBin,
): Promise<RunningOutpost> {
  const configPath = join(dir, 'host.json');
  await writeFile(configPath, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  const process = startProcess(t, globalThis.process.execPath, [bin, 'run', '-c', configPath], env);
  // outpost run prints `role  url` a front, in config order.
  await process.waitFor(new RegExp(`(^\\w+ +https?://\\S+/\\n){${fronts}}`, 'm'), 30_000);
  const urls = [...process.stdout().matchAll(/^\w+ +(https?:\/\/\S+\/)$/gm)].map(([, url]) => url!);
  return { process, dir, configPath, urls };
}

/** Polls `url` until `accept` holds for its answer's text, or fails after `timeoutMs`. */
export async function pollText(url: string, accept: (text: string, status: number) => boolean, timeoutMs = 20_000, init: RequestInit = {}): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const response = await fetch(url, init).catch(() => undefined);
    if (response !== undefined) {
      last = await response.text();
      if (accept(last, response.status)) return last;
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer as expected within ${timeoutMs} ms; last answer:\n${last}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A host config written as JSON to `dir/name`; its path. */
export async function hostFile(dir: string, name: string, config: unknown): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, JSON.stringify(config), { mode: 0o600 });
  return file;
}

/** Every actor of the supervisor whose control socket lives under `tmpDir` (its TMPDIR), by name: `outpost status --json`. */
export async function actorStates(tmpDir: string): Promise<Map<string, ActorStatus>> {
  const status = await runToEnd(process.execPath, [outpostBin, 'status', '--json'], { TMPDIR: tmpDir });
  if (status.code !== 0) throw new Error(`outpost status: ${status.stderr}`);
  const parsed = JSON.parse(status.stdout) as SupervisorStatus;
  return new Map(parsed.roles.flatMap((role) => role.actors).map((actor) => [actor.name, actor]));
}
