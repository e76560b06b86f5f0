// A file a config names (a CA bundle, a TLS certificate or key) is read when the config is checked,
// before anything starts: one that cannot be read is a config error naming the option (exit 2), not
// a thread that fails at each restart until the supervisor gives up.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { ConfigError } from '../errors.js';

/** The text of `path`, which config option `option` names; a ConfigError naming both when it cannot be read. */
export async function readNamedFile(option: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError([`${option}: ${path} cannot be read: ${readFailure(error)}`]);
  }
}

/** readNamedFile for the few callers that must stay synchronous (what a reload publishes is computed at once). */
export function readNamedFileSync(option: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError([`${option}: ${path} cannot be read: ${readFailure(error)}`]);
  }
}

/** ENOENT, EACCES, EISDIR as the system names them, with what they mean; other failures as they come. */
function readFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const meaning = code === undefined ? undefined : meanings[code];
  if (meaning !== undefined) return `${code} (${meaning})`;
  return error instanceof Error ? error.message : String(error);
}

const meanings: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'a directory, not a file',
  ENOTDIR: 'a part of the path is not a directory',
};
