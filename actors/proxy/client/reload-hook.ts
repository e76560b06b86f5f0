// The command run after new material was written (`--reload-cmd '["systemctl", "reload", "nginx"]'`).
// It is an argument array run without a shell: a domain name or a path never becomes shell syntax,
// and nothing needs quoting twice. Its output goes to ours; it gets a deadline.
import { spawn } from 'node:child_process';
import { childEnvironment } from '../../../src/process/child-environment.js';

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

/**
 * Runs `command` with CERTHUB_AGENT_DOMAINS set to the changed domains (comma-separated) and, of our
 * environment, only PATH, HOME, the locale and TZ (no token reaches it); resolves when it exits 0,
 * rejects with a message naming how it failed otherwise.
 */
export function runReloadCommand(command: ReloadCommand, changedDomains: readonly string[], timeoutMs = reloadTimeoutMs): Promise<void> {
  const [program, ...args] = command;
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: childEnvironment({ set: { CERTHUB_AGENT_DOMAINS: changedDomains.join(',') } }),
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    child.on('error', (error) => reject(new Error(`reload command ${program} could not start: ${error.message}`)));
    child.on('exit', (code, signal) => {
      if (code === 0) resolve();
      else if (signal !== null) reject(new Error(`reload command ${program} was ended by ${signal}${signal === 'SIGKILL' ? ` (it ran longer than ${timeoutMs / 1000} s?)` : ''}`));
      else reject(new Error(`reload command ${program} exited with code ${code ?? '?'}`));
    });
  });
}
