// A config file that holds secrets is refused when group or others may read it, as ssh refuses such
// a key: the secrets may already have been read, and starting would hide that. A systemd credential
// (LoadCredential=) is readable by the service alone, so it passes.
import { stat } from 'node:fs/promises';
import { ConfigError } from '../errors.js';
import type { HostConfig } from './host.js';
import { stdinName } from './load.js';
import { findRole, type RoleList } from './role.js';

/**
 * Throws a ConfigError when group or others may read `path`, naming what it `holds` (`the route
 * tokens`). Standard input, and a file that cannot be looked at, are left to the reader, which says why.
 */
export async function assertPrivateFile(path: string, holds: string): Promise<void> {
  if (path === stdinName) return;
  let mode: number;
  try {
    mode = (await stat(path)).mode & 0o777;
  } catch {
    return;
  }
  if ((mode & 0o077) !== 0) {
    throw new ConfigError([`${path} is readable by group or others (mode ${mode.toString(8).padStart(4, '0')}); it holds ${holds}: run chmod 600 ${path}`]);
  }
}

/** Refuses `file` while group or others may read it, when the settings it gives the roles `names` hold secrets (RoleDefinition.secrets). */
export async function refuseOpenSecrets(file: string, config: HostConfig, names: readonly string[], known: RoleList): Promise<void> {
  const held = names.flatMap((name) => findRole(known, name)?.secrets?.(config.roles[name]) ?? []);
  if (held.length > 0) await assertPrivateFile(file, held.join(' and '));
}
