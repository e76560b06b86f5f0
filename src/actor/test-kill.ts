// A hook for tests that kill actors' threads at chosen instants: with
// OUTPOST_TEST_KILL_ACTOR naming an actor (`recv/pool`), or several separated by commas, each SIGUSR2
// terminates each named actor's thread as a crash would, and the supervisor's restart policy takes over. An environment variable and a
// signal, not the control socket: only the process's own user (or root) can signal it, only
// whoever started it can set its environment, and the control socket stays what it is, a socket
// that reads nothing from its clients. Without the variable nothing is installed and SIGUSR2
// keeps Node's default.
import type { Logger } from '../log/record.js';

export const testKillVariable = 'OUTPOST_TEST_KILL_ACTOR';

export interface ActorTerminator {
  terminateActor(name: string): string | undefined;
}

export function installTestKill(supervisor: ActorTerminator, log: Logger, env: NodeJS.ProcessEnv = process.env): void {
  const names = (env[testKillVariable] ?? '').split(',').filter((name) => name !== '');
  if (names.length === 0) return;
  log.warn(`${testKillVariable} is set: SIGUSR2 terminates actor ${names.join(', ')} (a test hook; never set it in production)`);
  process.on('SIGUSR2', () => {
    for (const name of names) {
      const refused = supervisor.terminateActor(name);
      if (refused === undefined) log.warn(`SIGUSR2: terminated actor ${name}`);
      else log.warn(`SIGUSR2: ${refused}`);
    }
  });
}
