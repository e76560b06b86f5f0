// The pool passphrase, taken out of the environment the first time it is asked for: no thread and
// no program started afterwards inherits it, and the pool actor gets it in its config. Under
// systemd it comes from a credential file instead (APP_POOL_KEY_FILE=%d/pool-key), so it is never
// in any environment at all.
import { readFileSync } from 'node:fs';
import { ConfigError } from '../../src/errors.js';

export const poolKeyVariable = 'APP_POOL_KEY';
export const poolKeyFileVariable = 'APP_POOL_KEY_FILE';

let taken: string | undefined;

/**
 * APP_POOL_KEY, or the contents of the file APP_POOL_KEY_FILE names (one trailing newline dropped);
 * '' when neither is set. Both variables leave `environment` at the first call; later calls answer
 * what that one found.
 */
export function takePoolKey(environment: NodeJS.ProcessEnv = process.env): string {
  if (taken === undefined) {
    const file = environment[poolKeyFileVariable] ?? '';
    taken = environment[poolKeyVariable] ?? '';
    if (taken === '' && file !== '') taken = readKeyFile(file);
  }
  delete environment[poolKeyVariable];
  delete environment[poolKeyFileVariable];
  return taken;
}

function readKeyFile(path: string): string {
  try {
    return readFileSync(path, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw new ConfigError([`${poolKeyFileVariable} names ${path}, which cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`]);
  }
}
