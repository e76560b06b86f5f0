// One run of the receive command: its standard output is the arriving stream, passed on chunk by
// chunk as it comes (a never-exiting receiver such as auto-stream-recv works the same way).
import { spawn, type ChildProcess } from 'node:child_process';
import { childEnvironment } from '../../../src/process/child-environment.js';
import type { CommandWatch } from '../command-metrics.js';

export interface ReceiveRun {
  /** Resolves when the command has ended. */
  ended: Promise<{ bytes: number; durationMs: number; code: number | null; signal: NodeJS.Signals | null; stderr: string; error?: string }>;
  /** Ends the command and whatever it started. */
  kill(): void;
}

const stderrTail = 2000;

export function runReceiveCommand(command: readonly string[], onChunk: (chunk: Buffer) => void, watch?: CommandWatch): ReceiveRun {
  const [program, ...args] = command;
  const startedAt = performance.now();
  let child: ChildProcess | undefined;
  const ended: ReceiveRun['ended'] = new Promise((resolve) => {
    if (program === undefined) {
      resolve({ bytes: 0, durationMs: 0, code: null, signal: null, stderr: '', error: 'the receive command is empty' });
      return;
    }
    // Not detached: in serve's process group, a signal to the group (Ctrl-C, a service manager)
    // ends it too, so no orphan keeps taking chunks off the diode after serve is gone.
    const running = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'], env: childEnvironment() });
    child = running;
    watch?.started(running.pid);
    let bytes = 0;
    let stderr = '';
    let error: string | undefined;
    running.stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      onChunk(chunk);
    });
    running.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr = (stderr + text).slice(-stderrTail);
    });
    running.on('error', (failure) => (error = `could not run ${program}: ${failure.message}`));
    running.on('close', (code, signal) => {
      // A program that could not be started closes with a negative errno as its code: not an exit code.
      watch?.ended(running.pid, error === undefined ? code : null, signal);
      resolve({ bytes, durationMs: performance.now() - startedAt, code, signal, stderr: stderr.trim(), ...(error === undefined ? {} : { error }) });
    });
  });
  return {
    ended,
    kill() {
      if (child === undefined || child.exitCode !== null) return;
      try {
        child.kill('SIGKILL');
      } catch {
        // Ended already.
      }
    },
  };
}
