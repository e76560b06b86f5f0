// Runs actors under a supervisor as the process's main job: builds the actors of every role, starts
// them, prints the URLs, and turns SIGTERM/SIGINT into a drained stop with exit code 0.
import { holdClaims } from '../actor/claims.js';
import { defaultControlSocket, openControlSocket } from '../actor/control-socket.js';
import { installTestKill } from '../actor/test-kill.js';
import { Supervisor, type StartResult } from '../actor/supervisor.js';
import type { ActorSpec } from '../actor/spec.js';
import { inConfigFile } from '../config/load.js';
import { ConfigError } from '../errors.js';
import type { HostConfig, SupervisorSettings } from '../config/host.js';
import type { LivePublication } from '../config/role.js';
import { JobPool } from '../jobs/pool.js';
import { SupervisorLog, type LogOptions } from '../log/supervisor-log.js';
import { prepareHost, type PrepareOptions } from './host-check.js';
import { prepareLogFile } from './log-file.js';
import { uwsLoadProblem } from '../http/uws-build.js';
import { removeTemporaryDirs } from '../store/temporary-dirs.js';
import { exitAfterOutput, surviveClosedOutput } from './output.js';
import { reloadOnHangup, type ReloadSource } from './reload.js';
import type { LogFlags } from './program.js';

/**
 * Called once every front listens, with their URLs; `publish` hands the actors settings that needed
 * those URLs (`outpost demo`'s proxy route).
 */
export type OnStarted = (result: StartResult, publish: (publication: LivePublication) => void) => void | Promise<void>;

export interface RunHostOptions extends LogFlags, PrepareOptions {
  onStarted?: OnStarted;
  /** The host config file: SIGHUP re-reads it (reload.ts). */
  configPath?: string;
  /** How SIGHUP reads `configPath` when it is not a host config (a role binary's own file). */
  reread?: () => Promise<HostConfig>;
}

export async function runHost(config: HostConfig, options: RunHostOptions): Promise<never> {
  const { specs, claims, sharedProcess } = await prepareHost(config, options);
  // Its thread loads while the log file and the claims are made ready.
  const uwsProblem = specs.some((spec) => spec.front) ? uwsLoadProblem() : Promise.resolve(undefined);
  if (config.log.file !== undefined) {
    const problems = await prepareLogFile(config.log.file);
    if (problems.length > 0) throw options.file === undefined ? new ConfigError(problems) : inConfigFile(options.file, new ConfigError(problems));
  }
  // Before any actor runs: a refused claim leaves the holder's files and port untouched.
  await holdClaims(claims);
  const problem = await uwsProblem;
  if (problem !== undefined) throw new Error(problem);
  const log: LogOptions = {
    json: options.logJson ?? config.log.json,
    quiet: options.quiet ?? ['warn', 'error'].includes(config.log.level),
    debug: options.debug ?? config.log.level === 'debug',
    ...(config.log.file === undefined ? {} : { file: config.log.file }),
  };
  const reload =
    options.configPath === undefined
      ? undefined
      : {
          path: options.configPath,
          known: options.known,
          ...(options.reread === undefined ? {} : { read: options.reread }),
          running: config,
          levelFromFlags: options.quiet !== undefined || options.debug !== undefined,
        };
  // `outpost demo` runs every role on loopback with throw-away data: the warning is for real hosts.
  const warnings = options.configPath === undefined ? [] : sharedProcess;
  return runSupervisor(specs, config.supervisor, log, options.onStarted, reload, warnings);
}

/** A role binary's `onStarted`: its URLs on standard output, one a line, for a person or a script. */
export function printUrls({ urls }: StartResult): void {
  for (const url of urls) process.stdout.write(`${url}\n`);
}

/** Runs `specs` until a signal or a give-up stops them, then exits the process with the outcome. */
export async function runSupervisor(
  specs: readonly ActorSpec[],
  settings: SupervisorSettings,
  logOptions: LogOptions,
  onStarted?: OnStarted,
  reload?: ReloadSource,
  startWarnings: readonly string[] = [],
): Promise<never> {
  surviveClosedOutput();
  const log = new SupervisorLog(logOptions);
  for (const warning of startWarnings) log.logger('supervisor').warn(warning);
  const jobs = new JobPool();
  const supervisor = new Supervisor(specs, {
    log,
    jobs,
    readyTimeoutMs: settings.ready_timeout_ms,
    shutdownGraceMs: settings.shutdown_grace_ms,
    metricsIntervalMs: settings.metrics_interval_ms,
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
  reloadOnHangup(log, reload, ({ topic, message }) => supervisor.publish(topic, message));
  installTestKill(supervisor, log.logger('supervisor'));
  // Opened beside the start, not before it: asking whether another process holds the socket must
  // not delay the actors.
  const control = openControlSocket(settings.control_socket ?? defaultControlSocket(), () => supervisor.status()).then((outcome) => {
    if (outcome.listening) return outcome;
    // Several processes of one user share the default socket: only a socket the config names is a problem.
    const supervisorLog = log.logger('supervisor');
    if (settings.control_socket === undefined && outcome.unsafe !== true) supervisorLog.info(`outpost status will not reach this process: ${outcome.reason}`);
    else supervisorLog.warn(`outpost status will not reach this process (supervisor.control_socket): ${outcome.reason}`);
    return outcome;
  });
  supervisor.start().then(
    (result) => {
      const startLog = log.logger('supervisor');
      for (const { role, url } of result.endpoints) startLog.info(`${role} listening on ${url}`, { url });
      Promise.resolve(onStarted?.(result, ({ topic, message }) => supervisor.publish(topic, message))).catch((error: unknown) =>
        startLog.error(`after the start: ${error instanceof Error ? error.message : String(error)}`),
      );
    },
    // A start that fails has been logged and has stopped the supervisor; `done` settles below.
    () => {},
  );
  const { exitCode, stuckFronts } = await supervisor.done;
  const controlSocket = await control;
  if (controlSocket.listening) controlSocket.close();
  await jobs.close();
  await log.flush();
  if (stuckFronts.length > 0) {
    // A uWS front that will not stop cannot be torn down from outside without aborting the process
    // (see src/actor/supervisor.ts); the bound on shutdown wins over a clean exit. SIGKILL runs no
    // 'exit' listener: the demo's secrets go first.
    removeTemporaryDirs();
    process.kill(process.pid, 'SIGKILL');
  }
  return exitAfterOutput(exitCode, settings.shutdown_grace_ms);
}
