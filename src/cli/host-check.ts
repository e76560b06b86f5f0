// Everything `outpost run` checks before it binds a port or starts an actor, in one place, so that
// `outpost check` can run the same checks (as `caddy validate` does) and a config it calls valid
// starts: a file holding secrets readable by group or others, each role's own preparation (a pool file
// needs APP_POOL_KEY, certhub's data directory its config.json), two roles on one port, and the log file.
import { portClashes, type RoleClaims } from '../actor/claims.js';
import type { ActorSpec } from '../actor/spec.js';
import { hostConfigSchema, type HostConfig } from '../config/host.js';
import { knownKeys } from '../config/format.js';
import { inConfigFile, readConfigInput, validateConfigInput } from '../config/load.js';
import { refuseOpenSecrets } from '../config/private-file.js';
import { ConfigError } from '../errors.js';
import { findRole, type RoleDefinition, type RoleList } from '../config/role.js';
import { checkLogFile } from './log-file.js';

/** A host config ready to run: the actors of its roles and what they claim, roles in the config's order. */
export interface PreparedHost {
  config: HostConfig;
  roles: string[];
  specs: ActorSpec[];
  claims: { role: string; claims: RoleClaims }[];
  /** Roles that belong in a process of their own (RoleDefinition.ownProcess) but run beside others, as sentences. */
  sharedProcess: string[];
}

/** Reads and validates a host config file (`-`: standard input); `roles` keeps the file's order. */
export async function loadHostConfig(path: string, known: RoleList): Promise<{ config: HostConfig; roles: string[] }> {
  const input = await readConfigInput(path);
  const config = validateConfigInput(hostConfigSchema(known), path, input);
  const written = Object.keys((input as { roles: object }).roles);
  return { config, roles: written.filter((name) => config.roles[name] !== undefined) };
}

export interface PrepareOptions {
  /** The roles this program knows (actors/registry.ts for outpost; a role binary knows its own). */
  known: RoleList;
  /** The roles in the order the config file names them; the order of `known` by default. */
  order?: readonly string[];
  /** The config file, named at the start of each problem. */
  file?: string;
  /** `role`: the file is a role binary's own (qpool.json), whose options have no `roles.<name>.` in front. */
  optionPaths?: 'host' | 'role';
}

/**
 * Builds the actors of every role and checks what can be checked without binding anything. Every
 * problem is reported at once with its full option path (`roles.recv.server.pool_file ...`), after
 * the config file's name when there is one.
 */
export async function prepareHost(config: HostConfig, options: PrepareOptions): Promise<PreparedHost> {
  const order = options.order ?? options.known.map((role) => role.name).filter((name) => config.roles[name] !== undefined);
  if (options.file !== undefined) await refuseOpenSecrets(options.file, config, order, options.known);
  const prepared: PreparedHost = { config, roles: [], specs: [], claims: [], sharedProcess: [] };
  const problems: string[] = [];
  for (const name of order) {
    const roleConfig: unknown = config.roles[name];
    const role = findRole(options.known, name);
    if (roleConfig === undefined || role === undefined) continue;
    prepared.roles.push(name);
    try {
      prepared.specs.push(...(await role.actors(roleConfig)));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems.map((problem) => (options.optionPaths === 'role' ? problem : underRole(name, role, problem))));
    }
    if (role.claims !== undefined) prepared.claims.push({ role: name, claims: role.claims(roleConfig) });
  }
  for (const name of prepared.roles) {
    const reason = findRole(options.known, name)?.ownProcess;
    const others = prepared.roles.filter((other) => other !== name);
    if (reason !== undefined && others.length > 0)
      prepared.sharedProcess.push(`roles.${name} runs beside ${others.join(', ')} in one process, which shares its memory and its user: ${reason}`);
  }
  problems.push(...portClashes(prepared.claims));
  if (config.log.file !== undefined) problems.push(...(await checkLogFile(config.log.file)));
  if (problems.length > 0) throw options.file === undefined ? new ConfigError(problems) : inConfigFile(options.file, new ConfigError(problems));
  return prepared;
}

/** A role's problem names its options from the role's own settings (`server.pool_file`); a host config's from the top, or the role. */
function underRole(name: string, role: RoleDefinition, problem: string): string {
  const firstKey = /^([a-z_]+)[. ]/.exec(problem)?.[1];
  if (firstKey !== undefined && knownKeys(role.schema, []).includes(firstKey)) return `roles.${name}.${problem}`;
  return problem.startsWith('roles.') ? problem : `roles.${name}: ${problem}`;
}

/** `outpost check`: every file checked as `run` would check it, binding nothing; all problems of all files at once. */
export async function checkHostFiles(files: readonly string[], known: RoleList): Promise<void> {
  const problems: string[] = [];
  for (const file of files) {
    try {
      const { config, roles } = await loadHostConfig(file, known);
      await prepareHost(config, { known, order: roles, file });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
}
