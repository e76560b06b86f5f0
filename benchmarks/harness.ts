// What every benchmark shares: starting a server process and reading its URL, running wrk against a
// URL, and printing a table and its verdicts.
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

/**
 * Starts a script that prints `{"urls": [...], "startupMs": n}`, or a URL line as the executables do
 * (bare, or after the role's name as `outpost run` prints it), once it listens; `env` is added to this
 * process's environment.
 */
export function startServer(script: URL, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<StartedServer> {
  const startedAt = performance.now();
  const child = spawn(process.execPath, [script.pathname, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      output += text;
      const lines = output.split('\n');
      const json = lines.find((candidate) => candidate.startsWith('{"urls"'));
      const bare = lines.map((candidate) => /^(?:\S+ +)?(http:\/\/\S+)$/.exec(candidate)?.[1]).find((url) => url !== undefined);
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
  /** wrk's Requests/sec: every answer, non-2xx included. */
  requestsPerSecond: number;
  /** 2xx (and 3xx) answers a second, over wrk's own duration. */
  answeredPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  non2xx: number;
  socketErrors: number;
  /** non-2xx answers and socket errors together. */
  errors: number;
  /** How long wrk ran, by its own count. */
  seconds: number;
  /** wrk's own CPU time over the run: on a shared machine, part of what the server did not get. */
  wrkCpuSeconds: number;
}

/**
 * Runs wrk (one thread, keep-alive) against `url` and reads its figures; `script` is a Lua file for
 * wrk's -s; `prefix`, a command wrk runs under. bash's `times` reports wrk's CPU time.
 */
export async function wrk(url: string, options: { connections: number; seconds: number; script?: string; prefix?: readonly string[] }): Promise<LoadResult> {
  const script = options.script === undefined ? [] : ['-s', options.script];
  const command = 'wrk -t1 -c"$1" -d"$2"s --latency "${@:3}" && times';
  // `prefix` runs wrk inside another command (a mount namespace with its own /etc/hosts).
  const [program = 'bash', ...args] = [...(options.prefix ?? []), 'bash'];
  const { stdout } = await run(program, [...args, '-c', command, 'wrk', String(options.connections), String(options.seconds), ...script, url], {
    maxBuffer: 1 << 20,
  });
  const count = (pattern: RegExp) => Number(pattern.exec(stdout)?.[1] ?? 0);
  const latency = (pattern: RegExp) => {
    const match = pattern.exec(stdout);
    if (match === null) return Number.NaN;
    const value = Number(match[1]);
    return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
  };
  const total = /(\d+) requests in ([\d.]+)(us|ms|s|m)\b/.exec(stdout);
  if (total === null) throw new Error(`wrk printed no request count:\n${stdout}`);
  const seconds = Number(total[2]) * { us: 1e-6, ms: 1e-3, s: 1, m: 60 }[total[3] as 'us' | 'ms' | 's' | 'm'];
  const non2xx = count(/Non-2xx or 3xx responses: (\d+)/);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  const socketErrors = socket === null ? 0 : socket.slice(1).reduce((sum, value) => sum + Number(value), 0);
  // `times` prints the shell's times, then its children's: user and system.
  const children = [...stdout.matchAll(/(\d+)m([\d.]+)s (\d+)m([\d.]+)s/g)][1];
  return {
    requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? 'NaN'),
    answeredPerSecond: (Number(total[1]) - non2xx) / seconds,
    latencyP50Ms: latency(/50%\s+([\d.]+)(us|ms|s)/),
    latencyP99Ms: latency(/99%\s+([\d.]+)(us|ms|s)/),
    // "Latency  avg  stdev  max  +/- stdev"
    latencyMaxMs: latency(/Latency\s+\S+\s+\S+\s+([\d.]+)(us|ms|s)/),
    non2xx,
    socketErrors,
    errors: non2xx + socketErrors,
    seconds,
    wrkCpuSeconds: children === undefined ? Number.NaN : Number(children[1]) * 60 + Number(children[2]) + Number(children[3]) * 60 + Number(children[4]),
  };
}

/** SIGTERM to `child`; resolves once it has exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
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

/** How a figure compares with its target, as every benchmark's closing lines say it. */
export function verdict(met: boolean): string {
  return met ? 'met' : 'NOT met';
}

/** The value below which `p` percent of `values` fall (nearest rank). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

export { median } from '../actors/speedtest/client/statistics.js';
