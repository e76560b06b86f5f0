// Runs a validated host config: builds the actors of every role, starts the supervisor, prints the
// URLs, and turns SIGTERM/SIGINT into a drained stop with exit code 0.
import { Supervisor, type StartResult } from '../actor/supervisor.js';
import type { ActorSpec } from '../actor/spec.js';
import type { HostConfig } from '../config/host.js';
import { JobPool } from '../jobs/pool.js';
import { SupervisorLog } from '../log/supervisor-log.js';
import { roleDefinition } from '../roles/registry.js';
import { roleNames } from '../roles/role.js';
import type { LogFlags } from './program.js';

export interface RunHostOptions extends LogFlags {
  /** Called once every front listens, with their URLs. */
  onStarted?: (result: StartResult) => void;
}

export async function runHost(config: HostConfig, options: RunHostOptions): Promise<never> {
  const log = new SupervisorLog({
    json: options.logJson ?? config.log.json,
    quiet: options.quiet ?? config.log.level === 'warn',
    debug: options.debug ?? config.log.level === 'debug',
    ...(config.log.file === undefined ? {} : { file: config.log.file }),
  });
  const specs: ActorSpec[] = [];
  for (const name of roleNames) {
    const roleConfig: unknown = config.roles[name];
    const role = roleDefinition(name);
    if (roleConfig === undefined || role === undefined) continue;
    specs.push(...(await role.actors(roleConfig)));
  }
  const jobs = new JobPool();
  const settings = config.supervisor;
  const supervisor = new Supervisor(specs, {
    log,
    jobs,
    readyTimeoutMs: settings.ready_timeout_ms,
    shutdownGraceMs: settings.shutdown_grace_ms,
    restart: {
      maxRestarts: settings.restart.max_restarts,
      windowMs: settings.restart.window_seconds * 1000,
      initialBackoffMs: settings.restart.initial_backoff_ms,
      maxBackoffMs: settings.restart.max_backoff_ms,
    },
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => void supervisor.stop(0, `received ${signal}`));
  }
  supervisor.start().then(
    (result) => options.onStarted?.(result),
    // A start that fails has already been logged and has stopped the supervisor; `done` settles.
    () => {},
  );
  const { exitCode, stuckFronts } = await supervisor.done;
  await jobs.close();
  await log.flush();
  if (stuckFronts.length > 0) {
    // A uWS front that will not stop cannot be torn down from outside without aborting the process
    // (see src/actor/supervisor.ts); the bound on shutdown wins over a clean exit.
    process.kill(process.pid, 'SIGKILL');
  }
  process.exit(exitCode);
}
