// Writing a file so that a crash at any instant leaves either the old content or the new, never a
// mix: write a temporary file beside it, fsync it, rename it over the target, fsync the directory
// (without the last step the rename itself may be lost on power failure).
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface AtomicWriteOptions {
  /** File mode of the new file; 0o600 for anything secret. */
  mode?: number;
}

/** `data` may come in pieces, written in order (a large file need not be joined in memory first). */
export async function writeFileAtomic(path: string, data: string | Uint8Array | readonly Uint8Array[], options: AtomicWriteOptions = {}): Promise<void> {
  const temporary = await stageFile(path, data, options);
  try {
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncDirectory(dirname(path));
}

/**
 * The first half of an atomic write: the new content of `path` in a temporary file beside it, written
 * and synced, whose name is returned for the caller to rename over `path` (or remove). Several files
 * that belong together are all staged before any is renamed, so a failure leaves none replaced.
 */
export async function stageFile(path: string, data: string | Uint8Array | readonly Uint8Array[], options: AtomicWriteOptions = {}): Promise<string> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const file = await open(temporary, 'wx', options.mode ?? 0o644);
  try {
    // writeFile on a handle writes from the current position, all of it.
    if (typeof data === 'string' || data instanceof Uint8Array) await file.writeFile(data);
    else for (const piece of data) await file.writeFile(piece);
    // The mode passed to open() is filtered by the umask; secrets must not depend on it.
    if (options.mode !== undefined) await file.chmod(options.mode);
    await file.sync();
  } catch (error) {
    await file.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await file.close();
  return temporary;
}

export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
