// A config file that holds secrets is refused when group or others may read it, as ssh refuses such
// a key: the secrets may already have been read, and starting would hide that. A systemd credential
// (LoadCredential=) is readable by the service alone, so it passes.
import { stat } from 'node:fs/promises';
import { ConfigError } from '../errors.js';
import { stdinName } from './load.js';

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
