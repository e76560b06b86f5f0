// SIGHUP for `outpost run -c FILE`: the host config is read and checked again. What can change in a
// running process changes (the log level, and each role's live keys: RoleDefinition.live, handed to
// its actors on a topic they follow); every other option that differs is named in the log as
// needing a restart; a config that fails its check, or holds secrets that group or others may read,
// is refused with every problem, and the running one stays. Binaries without a host config file log
// that they re-read nothing (Node's default for SIGHUP would end the process, which `systemctl
// reload` must never do).
import { hostConfigSchema, type HostConfig } from '../config/host.js';
import { loadConfigFile } from '../config/load.js';
import { refuseOpenSecrets } from '../config/private-file.js';
import { ConfigError } from '../errors.js';
import { findRole, type LivePublication, type RoleList } from '../config/role.js';
import type { Logger } from '../log/record.js';
import type { SupervisorLog } from '../log/supervisor-log.js';

export interface ReloadSource {
  path: string;
  /** The roles the program knows, to check the file again as it was checked at start. */
  known: RoleList;
  /** Reads and checks the file again: the host config at `path` unless given (a role binary reads its own file). */
  read?: () => Promise<HostConfig>;
  /** The config the process runs. */
  running: HostConfig;
  /** The log level was set on the command line (--debug, --quiet): it wins over the file's. */
  levelFromFlags: boolean;
}

/** Hands the role's actors a live setting (Supervisor.publish). */
export type Publish = (publication: LivePublication) => void;

/** Installs the SIGHUP handler; `source` undefined for a binary that has no host config file. */
export function reloadOnHangup(log: SupervisorLog, source: ReloadSource | undefined, publish: Publish): void {
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
      running = await reload(source, from, log, logger, publish);
    });
  });
}

async function reload(source: ReloadSource, running: HostConfig, log: SupervisorLog, logger: Logger, publish: Publish): Promise<HostConfig> {
  let next: HostConfig;
  try {
    next = await (source.read?.() ?? loadConfigFile(hostConfigSchema(source.known), source.path));
    await refuseOpenSecrets(source.path, next, Object.keys(next.roles), source.known);
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
  /** Role name -> the live keys of its config that changed. */
  const live = new Map<string, Set<string>>();
  for (const path of changed) {
    const liveKey = liveSetting(source.known, running, next, path);
    if (path === 'log.level' && !source.levelFromFlags) {
      log.setLevel(next.log.level);
      applied.push(`log.level is now ${next.log.level}`);
    } else if (liveKey !== undefined) {
      live.set(liveKey.role, (live.get(liveKey.role) ?? new Set()).add(liveKey.key));
    } else {
      needRestart.push(path);
    }
  }
  const roles = { ...running.roles };
  for (const [name, keys] of live) {
    const settings = { ...(running.roles[name] as Record<string, unknown>) };
    for (const key of keys) settings[key] = (next.roles[name] as Record<string, unknown>)[key];
    for (const publication of findRole(source.known, name)!.live!.publish(settings)) publish(publication);
    roles[name] = settings;
    applied.push(`${[...keys].map((key) => `roles.${name}.${key}`).join(', ')} applied`);
  }
  if (applied.length > 0) logger.info(`reloaded ${source.path}: ${applied.join('; ')}`);
  if (needRestart.length > 0)
    logger.warn(`reloaded ${source.path}: ${needRestart.join(', ')} changed and ${needRestart.length === 1 ? 'needs' : 'need'} a restart to take effect`);
  // What was not applied still runs as before: the next reload compares with that.
  return { ...running, roles, log: { ...running.log, level: source.levelFromFlags ? running.log.level : next.log.level } };
}

/** The role and key of a changed path that its role takes live (`roles.proxy.routes.<name>.backend`), if it is one. */
function liveSetting(known: RoleList, running: HostConfig, next: HostConfig, path: string): { role: string; key: string } | undefined {
  const [top, role, key] = path.split('.');
  if (top !== 'roles' || role === undefined || key === undefined) return undefined;
  // A role started or stopped by the new config needs a restart, whatever changed in it.
  if (running.roles[role] === undefined || next.roles[role] === undefined) return undefined;
  return findRole(known, role)?.live?.keys.includes(key) === true ? { role, key } : undefined;
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
