// Running the real qpool executables in tests: a config file in a temporary folder, `qpool serve`
// started and waited for, and the server's status read over HTTP.
import type { ExecutionContext } from 'ava';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PoolStatus } from '../../actors/qpool/pool/protocol.js';
import type { ValueRecord } from '../../actors/qpool/values/record.js';
import { asBuffer, entryCount, recordAt } from '../../actors/qpool/values/batch.js';
import { reservePort } from '../../src/http/port.js';
import { projectPath, startProcess, type RunningProcess } from './process.js';

export const qpoolBin = projectPath('dist/bin/qpool.js');

/** A temporary folder removed after the test. */
export async function tempDir(t: ExecutionContext, prefix = 'qpool-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A file's permission bits. */
export async function modeOf(path: string): Promise<number> {
  return (await stat(path)).mode & 0o777;
}

export async function writeConfig(dir: string, config: unknown, name = 'qpool.json'): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, `${JSON.stringify(config, null, 2)}\n`);
  return path;
}

/** A listen address on a free loopback port. */
export async function freeListen(): Promise<string> {
  return `127.0.0.1:${await reservePort('127.0.0.1')}`;
}

export interface RunningServe {
  process: RunningProcess;
  /** Base URL, ending in a slash. */
  url: string;
}

/** Starts `qpool serve -c config` and waits until it prints its URL. */
export async function startServe(t: ExecutionContext, configPath: string, env: NodeJS.ProcessEnv = {}): Promise<RunningServe> {
  const serve = startProcess(t, process.execPath, [qpoolBin, 'serve', '-c', configPath], env);
  const [url] = await serve.waitFor(/^http:\/\/\S+\/$/m, 20_000);
  return { process: serve, url: url.trim() };
}

export function startCollect(t: ExecutionContext, configPath: string, env: NodeJS.ProcessEnv = {}): RunningProcess {
  return startProcess(t, process.execPath, [qpoolBin, 'collect', '-c', configPath], env);
}

export async function poolStatus(url: string): Promise<PoolStatus> {
  return (await (await fetch(`${url}api/status`)).json()) as PoolStatus;
}

/** Polls /api/status until `ready` holds. */
export async function waitForStatus(url: string, ready: (status: PoolStatus) => boolean, timeoutMs = 20_000): Promise<PoolStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await poolStatus(url);
    if (ready(status)) return status;
    if (Date.now() > deadline) throw new Error(`pool status never matched: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** JSON lines of `count` fresh values, as the collector would send them. */
export function valueLines(values: readonly string[], source: 'keyed' | 'legacy' = 'legacy', timestamp = new Date().toISOString()): string {
  return values.map((value) => `{"value":"${value}","timestamp":"${timestamp}","source":"${source}"}\n`).join('');
}

/** The values of a value batch as the records /api/random answers. */
export function recordsOf(batch: Uint8Array): ValueRecord[] {
  const bytes = asBuffer(batch);
  return Array.from({ length: entryCount(bytes) }, (_, index) => recordAt(bytes, index));
}

/**
 * What one GET /api/random came to, for tests that take values while something fails; a value comes
 * with the count its answer said was left (X-Quantum-Available).
 */
export type Take =
  | { kind: 'value'; value: string; available: number }
  | { kind: 'refused'; status: number; body: string }
  | { kind: 'closed' }
  | { kind: 'hung' };

/** Takes one value from the server at `url`; past `deadlineMs` the request counts as hung. */
export async function takeValue(url: string, deadlineMs: number): Promise<Take> {
  try {
    const response = await fetch(`${url}api/random`, { signal: AbortSignal.timeout(deadlineMs) });
    const body = await response.text();
    return response.status === 200
      ? { kind: 'value', value: (JSON.parse(body) as { value: string }).value, available: Number(response.headers.get('x-quantum-available')) }
      : { kind: 'refused', status: response.status, body };
  } catch (error) {
    return (error as Error).name === 'TimeoutError' ? { kind: 'hung' } : { kind: 'closed' };
  }
}
