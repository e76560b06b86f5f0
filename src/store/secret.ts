import { chmod, readFile, stat } from 'node:fs/promises';
import { writeFileAtomic } from './atomic.js';
import { makeDirectories } from './directories.js';

export const secretFileMode = 0o600;
export const secretDirMode = 0o700;

/** Writes a secret (key, token, pool file) atomically with mode 0600. */
export function writeSecretFile(path: string, data: string | Uint8Array | readonly Uint8Array[]): Promise<void> {
  return writeFileAtomic(path, data, { mode: secretFileMode });
}

/** Creates a data directory readable by its owner only, and tightens an existing one. */
export async function ensureSecretDirectory(dir: string): Promise<void> {
  await makeDirectories(dir, secretDirMode);
  await chmod(dir, secretDirMode);
}

/** Reads a secret file, refusing one that others may read: its content can no longer be trusted as secret. */
export async function readSecretFile(path: string): Promise<Buffer> {
  const info = await stat(path);
  if ((info.mode & 0o077) !== 0) {
    throw new Error(`${path} is readable by other users (mode ${(info.mode & 0o777).toString(8)}); run chmod 600 ${path}`);
  }
  return readFile(path);
}
