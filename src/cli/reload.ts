// SIGHUP for `outpost run -c FILE`: the host config is read and checked again. What can change in a
// running process changes (the log level); every other option that differs is named in the log as
// needing a restart; a config that fails its check is refused with every problem, and the running
// one stays. Binaries without a host config file log that they re-read nothing (Node's default for
// SIGHUP would end the process, which `systemctl reload` must never do).
import { hostConfigSchema, type HostConfig } from '../config/host.js';
import { loadConfigFile } from '../config/load.js';
import { ConfigError } from '../errors.js';
import type { RoleList } from '../config/role.js';
import type { Logger } from '../log/record.js';
import type { SupervisorLog } from '../log/supervisor-log.js';

export interface ReloadSource {
  path: string;
  /** The roles the program knows, to check the file again as it was checked at start. */
  known: RoleList;
  /** The config the process runs. */
  running: HostConfig;
  /** The log level was set on the command line (--debug, --quiet): it wins over the file's. */
  levelFromFlags: boolean;
}

/** Installs the SIGHUP handler; `source` undefined for a binary that has no host config file. */
export function reloadOnHangup(log: SupervisorLog, source: ReloadSource | undefined): void {
  const logger = log.logger('supervisor');
  let running = source?.running;
  let reloading = Promise.resolve();
  process.on('SIGHUP', () => {
    if (source === undefined || running === undefined) {
      logger.info('received SIGHUP: this command has no host config to re-read; restart it to change its settings');
      return;
    }
    const from = running;
    reloading = reloading.then(async () => {
      running = await reload(source, from, log, logger);
    });
  });
}

async function reload(source: ReloadSource, running: HostConfig, log: SupervisorLog, logger: Logger): Promise<HostConfig> {
  let next: HostConfig;
  try {
    next = await loadConfigFile(hostConfigSchema(source.known), source.path);
  } catch (error) {
    const problems = error instanceof ConfigError ? error.problems : [String(error)];
    logger.error(`reload refused, the running config stays: ${problems.join('; ')}`);
    return running;
  }
  const changed = changedPaths(running, next);
  if (changed.length === 0) {
    logger.info(`reloaded ${source.path}: nothing changed`);
    return running;
  }
  const applied: string[] = [];
  const needRestart: string[] = [];
  for (const path of changed) {
    if (path === 'log.level' && !source.levelFromFlags) {
      log.setLevel(next.log.level);
      applied.push(`log.level is now ${next.log.level}`);
    } else {
      needRestart.push(path);
    }
  }
  if (applied.length > 0) logger.info(`reloaded ${source.path}: ${applied.join('; ')}`);
  if (needRestart.length > 0) logger.warn(`reloaded ${source.path}: ${needRestart.join(', ')} changed and ${needRestart.length === 1 ? 'needs' : 'need'} a restart to take effect`);
  // What was not applied still runs as before: the next reload compares with that.
  return { ...running, log: { ...running.log, level: source.levelFromFlags ? running.log.level : next.log.level } };
}

/** The option paths (`roles.monitor.port`) whose values differ between two configs. */
export function changedPaths(before: unknown, after: unknown, prefix = ''): string[] {
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => changedPaths(before[key], after[key], prefix === '' ? key : `${prefix}.${key}`));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [prefix === '' ? '(the whole config)' : prefix];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
