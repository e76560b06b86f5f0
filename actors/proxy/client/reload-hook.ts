// The command run after new material was written (`--reload-cmd '["systemctl", "reload", "nginx"]'`).
// It is an argument array run without a shell: a domain name or a path never becomes shell syntax,
// and nothing needs quoting twice. Its output goes to ours; it gets a deadline.
import { spawn } from 'node:child_process';
import { childEnvironment } from '../../../src/process/child-environment.js';
import { ReloadFailure } from './host-report.js';

export type ReloadCommand = readonly [string, ...string[]];

/** How long a reload command may run before it is killed and counted as failed. */
export const reloadTimeoutMs = 60_000;

/** The value of `--reload-cmd`: a JSON array of at least one string; why not, when it is not. */
export function parseReloadCommand(text: string): ReloadCommand | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'must be a JSON array of strings, e.g. \'["systemctl", "reload", "nginx"]\' (it is run without a shell)';
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((part) => typeof part === 'string') || parsed[0] === '') {
    return 'must be a non-empty JSON array of strings whose first is the program, e.g. \'["systemctl", "reload", "nginx"]\'';
  }
  return parsed as unknown as ReloadCommand;
}

/** How a reload command ended well: its exit code (0) and the last lines it wrote. */
export interface ReloadOutcome {
  code: number;
  lastLines: string[];
}

/** The most of a reload command's output kept for the log: its last lines, each cut short. */
const keptLines = 5;
const keptLineLength = 200;
/** Controls and DEL, made blanks: a program's output goes to a log, which must carry no escapes. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const controlCharacters = /[\u0000-\u001f\u007f]/g;

/**
 * Runs `command` with CERTHUB_AGENT_DOMAINS set to the changed domains (comma-separated) and, of our
 * environment, only PATH, HOME, the locale and TZ (no token reaches it); its output goes on to ours,
 * and its last lines are kept for the log. Resolves when it exits 0, rejects with a message naming how
 * it failed (exit code or signal, and its last lines) otherwise: a ReloadFailure.
 */
export function runReloadCommand(command: ReloadCommand, changedDomains: readonly string[], timeoutMs = reloadTimeoutMs): Promise<ReloadOutcome> {
  const [program, ...args] = command;
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: childEnvironment({ set: { CERTHUB_AGENT_DOMAINS: changedDomains.join(',') } }),
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    const tail = new OutputTail();
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      tail.add(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      tail.add(chunk);
    });
    child.on('error', (error) => reject(new ReloadFailure(`reload command ${program} could not start: ${error.message}`, null, [error.message])));
    child.on('close', (code, signal) => {
      const lastLines = tail.lines();
      const said = lastLines.length === 0 ? '' : `; its last lines: ${lastLines.join(' | ')}`;
      if (code === 0) resolve({ code, lastLines });
      else if (signal !== null)
        reject(
          new ReloadFailure(
            `reload command ${program} was ended by ${signal}${signal === 'SIGKILL' ? ` (it ran longer than ${timeoutMs / 1000} s?)` : ''}${said}`,
            null,
            lastLines,
          ),
        );
      else reject(new ReloadFailure(`reload command ${program} exited with code ${code ?? '?'}${said}`, code, lastLines));
    });
  });
}

/** The log line of a reload command that succeeded. */
export function reloadSuccessLine(command: ReloadCommand, changedDomains: readonly string[], outcome: ReloadOutcome): string {
  const said = outcome.lastLines.length === 0 ? '' : `; its last lines: ${outcome.lastLines.join(' | ')}`;
  return `reload command ${command[0]} ran for ${changedDomains.join(', ')}: exit code ${outcome.code}${said}`;
}

/** The last lines of a stream of output, bounded however much comes. */
class OutputTail {
  private text = '';

  add(chunk: Buffer): void {
    this.text = (this.text + chunk.toString('utf8')).slice(-keptLines * (keptLineLength + 1) * 2);
  }

  lines(): string[] {
    return this.text
      .split(/\r?\n/)
      .map((line) => line.replace(controlCharacters, ' ').trim().slice(0, keptLineLength))
      .filter((line) => line !== '')
      .slice(-keptLines);
  }
}
