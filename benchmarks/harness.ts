// What every benchmark shares: starting a server process and reading its URL, running wrk against a
// URL, and printing a table.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const projectRoot = new URL('../../', import.meta.url);

export interface StartedServer {
  child: ChildProcess;
  urls: string[];
  startupMs: number;
  /** Wall time from spawn to the URLs being printed. */
  wallMs: number;
  stop(): Promise<void>;
}

/** Starts a script that prints `{"urls": [...], "startupMs": n}`, or a bare URL line as the executables do, once it listens. */
export function startServer(script: URL, args: string[] = []): Promise<StartedServer> {
  const startedAt = performance.now();
  const child = spawn(process.execPath, [script.pathname, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      output += text;
      const lines = output.split('\n');
      const json = lines.find((candidate) => candidate.startsWith('{"urls"'));
      const bare = lines.find((candidate) => /^http:\/\/\S+$/.test(candidate));
      if (json === undefined && bare === undefined) return;
      const { urls, startupMs } = json === undefined ? { urls: [bare!], startupMs: Number.NaN } : (JSON.parse(json) as { urls: string[]; startupMs: number });
      resolve({
        child,
        urls,
        startupMs,
        wallMs: performance.now() - startedAt,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('exit', (code) => reject(new Error(`${script.pathname} exited with ${code} before listening`)));
  });
}

export interface LoadResult {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  errors: number;
}

/** Runs wrk (one thread, keep-alive) against `url` and reads its figures; `script` is a Lua file for wrk's -s. */
export async function wrk(url: string, options: { connections: number; seconds: number; script?: string }): Promise<LoadResult> {
  const script = options.script === undefined ? [] : ['-s', options.script];
  const { stdout } = await run('wrk', ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--latency', ...script, url], { maxBuffer: 1 << 20 });
  const number = (pattern: RegExp) => Number(stdout.match(pattern)?.[1] ?? 'NaN');
  const latency = (pattern: RegExp) => {
    const match = stdout.match(pattern);
    if (match === null) return Number.NaN;
    const value = Number(match[1]);
    return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
  };
  const errors = stdout.match(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/);
  const non2xx = number(/Non-2xx or 3xx responses: (\d+)/);
  return {
    requestsPerSecond: number(/Requests\/sec:\s+([\d.]+)/),
    latencyP50Ms: latency(/50%\s+([\d.]+)(us|ms|s)/),
    latencyP99Ms: latency(/99%\s+([\d.]+)(us|ms|s)/),
    errors: (errors === null ? 0 : errors.slice(1).reduce((sum, value) => sum + Number(value), 0)) + (Number.isNaN(non2xx) ? 0 : non2xx),
  };
}

/** Installs the benchmark group of test/system-deps.sh when one of `commands` is missing. */
export async function ensureTools(commands: readonly string[]): Promise<void> {
  for (const command of commands) {
    try {
      await run('sh', ['-c', `command -v ${command}`]);
    } catch {
      await run('bash', [new URL('test/system-deps.sh', projectRoot).pathname, 'bench']);
      return;
    }
  }
}

export function printTable(title: string, header: string[], rows: (string | number)[][]): void {
  const cells = [header, ...rows.map((row) => row.map((cell) => (typeof cell === 'number' ? formatNumber(cell) : cell)))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => String(row[column] ?? '').length)));
  console.log(`\n${title}`);
  cells.forEach((row, index) => {
    console.log(row.map((cell, column) => String(cell).padStart(widths[column] ?? 0)).join('  '));
    if (index === 0) console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  });
}

function formatNumber(value: number): string {
  if (Number.isInteger(value)) return value.toLocaleString('en-US');
  return value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(2);
}

/** The value below which `p` percent of `values` fall (nearest rank). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

export { median } from '../actors/speedtest/client/statistics.js';
