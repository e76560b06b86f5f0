// One run of the diode's send command: the batch goes to its standard input; exit code 0 within the
// deadline is a delivered batch. The command runs in its own process group, so a hanging tool and
// anything it started are killed together at the deadline, or when the actor stops (`signal`): being
// in a group of its own, it would otherwise outlive the outpost that started it.
import { spawn } from 'node:child_process';
import { childEnvironment } from '../../../src/process/child-environment.js';
import type { CommandWatch } from '../command-metrics.js';

export type TransferOutcome = { ok: true } | { ok: false; reason: string };

/** How much of the tool's stderr the log keeps. */
const stderrTail = 2000;

export function runSendCommand(
  command: readonly string[],
  input: string,
  timeoutMs: number,
  watch?: CommandWatch,
  signal?: AbortSignal,
): Promise<TransferOutcome> {
  const [program, ...args] = command;
  if (program === undefined) return Promise.resolve({ ok: false, reason: 'the send command is empty' });
  return new Promise((resolve) => {
    const child = spawn(program, args, { stdio: ['pipe', 'ignore', 'pipe'], detached: true, env: childEnvironment() });
    watch?.started(child.pid);
    let stderr = '';
    let timedOut = false;
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr = (stderr + text).slice(-stderrTail);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    const stop = () => killGroup(child.pid);
    signal?.addEventListener('abort', stop, { once: true });
    child.once('close', () => signal?.removeEventListener('abort', stop));
    // A tool that exits without reading all of its input closes the pipe; the exit code tells the outcome.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
    let failedToStart = false;
    child.on('error', (error) => {
      failedToStart = true;
      clearTimeout(timer);
      watch?.ended(child.pid, null, null);
      resolve({ ok: false, reason: `could not run ${program}: ${error.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // A program that could not be started was counted at its error (its close, with a negative errno as code, comes later).
      if (!failedToStart) watch?.ended(child.pid, code, signal);
      if (timedOut) {
        killGroup(child.pid);
        resolve({ ok: false, reason: `no answer within ${timeoutMs / 1000}s (diode.timeout_seconds); killed` });
      } else if (code === 0) {
        resolve({ ok: true });
      } else {
        const how = signal === null ? `exit code ${code}` : `signal ${signal}`;
        const said = stderr.trim() === '' ? '' : `: ${stderr.trim().replace(/\s+/g, ' ')}`;
        resolve({ ok: false, reason: `${program} ended with ${how}${said}` });
      }
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group has ended already.
  }
}
