// Child processes for tests: started with their output collected, stopped at teardown whatever the
// test's outcome.
import { spawn, type ChildProcess } from 'node:child_process';
import type { ExecutionContext } from 'ava';

// This file runs as dist/test/helpers/process.js; the project root is three folders up.
export const projectRoot = new URL('../../../', import.meta.url);

export function projectPath(relative: string): string {
  return new URL(relative, projectRoot).pathname;
}

export interface RunningProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout or stderr text matching `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | NodeJS.Signals>;
}

/** How long, after a process exits, its output pipes may take to end. */
const pipeDrainMs = 1000;

/** The last lines of a process's output, labelled; '' when it wrote nothing there. */
function lastLines(text: string, stream: string, count = 30): string {
  if (text === '') return '';
  return `--- ${stream}, last ${count} lines:\n${text.trimEnd().split('\n').slice(-count).join('\n')}\n`;
}

export function startProcess(t: ExecutionContext, command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): RunningProcess {
  // Its own process group, so that teardown also ends whatever it started (pool workers, forks).
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  const watchers = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
    for (const watcher of watchers) watcher();
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
    for (const watcher of watchers) watcher();
  });
  // 'exit' can come before the last lines written are read from the pipes: wait for them to end,
  // but not for long, since a process it started (and that outlives it) may hold them open.
  const exited = new Promise<number | NodeJS.Signals>((resolve) =>
    child.on('exit', (code, signal) => {
      const drained = Promise.all(
        [child.stdout, child.stderr].map((stream) => (stream.readableEnded ? Promise.resolve() : new Promise((ended) => stream.once('end', ended)))),
      );
      void Promise.race([drained, new Promise((bound) => setTimeout(bound, pipeDrainMs))]).then(() => resolve(code ?? signal ?? -1));
    }),
  );
  t.teardown(() => {
    // A failed test shows what each process it started said last: a failure seen once in a full run
    // (a reset connection, a thread restarted) is then explained by the run that saw it.
    if (!t.passed) t.log(`${[command, ...args].join(' ')} said last:\n${lastLines(stdout, 'stdout')}${lastLines(stderr, 'stderr')}`);
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group has ended already.
    }
  });
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    waitFor(pattern, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = stdout.match(pattern) ?? stderr.match(pattern);
          if (match === null) return false;
          cleanup();
          resolve(match);
          return true;
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out waiting for ${String(pattern)}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
        }, timeoutMs);
        const onExit = () => {
          if (check()) return;
          cleanup();
          reject(new Error(`process exited before printing ${String(pattern)}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
        };
        const cleanup = () => {
          clearTimeout(timer);
          watchers.delete(watcher);
          child.off('exit', onExit);
        };
        const watcher = () => void check();
        if (check()) return;
        watchers.add(watcher);
        child.on('exit', onExit);
      });
    },
  };
}

/** Runs a command to completion with `input` on its stdin, which is then closed (at once when there is none). */
export function runToEnd(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  input = '',
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // The command may finish (or refuse) before reading everything.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}
