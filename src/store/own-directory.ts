// Folders where only this user can create files: the sockets that say "this process holds the port"
// (src/actor/claim-socket.ts) and the control socket live in one, so another local user cannot
// create them first and have outpost refuse to start, or answer `outpost status` in its place.
import { lstatSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OutpostError } from '../errors.js';

/** This user's folder for outpost's sockets under the temporary folder (TMPDIR): `/tmp/outpost-<uid>`. */
export function userSocketDirectory(): string {
  return join(tmpdir(), `outpost-${process.getuid?.() ?? 'user'}`);
}

/** A folder other users could create files in: outpost refuses to use it. */
export class UnsafeDirectory extends OutpostError {
  override readonly name: string = 'UnsafeDirectory';
  constructor(message: string) {
    super('ERR_CONFLICT', message);
  }
}

/**
 * Makes `dir` (mode 0700, missing parents too) unless it exists, then throws UnsafeDirectory unless it
 * is a real folder of this user that neither its group nor others may write. Synchronous: a process
 * that stops removes its empty socket folder, and a check awaited after the mkdir could find it gone.
 */
export function ensureOwnDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  checkOwnDirectory(dir);
}

/** Throws UnsafeDirectory unless `dir` is a real folder of this user that neither its group nor others may write. */
export function checkOwnDirectory(dir: string): void {
  const info = lstatSync(dir);
  if (info.isSymbolicLink()) throw new UnsafeDirectory(`${dir} is a symbolic link; outpost keeps its sockets only in a real folder of its own`);
  if (!info.isDirectory()) throw new UnsafeDirectory(`${dir} is not a folder`);
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) {
    throw new UnsafeDirectory(
      `${dir} belongs to uid ${info.uid}, not to this user (uid ${uid}): another user may have made it to take outpost's sockets; remove it`,
    );
  }
  if ((info.mode & 0o022) !== 0) {
    throw new UnsafeDirectory(`${dir} may be written by other users (mode ${(info.mode & 0o777).toString(8)}); run chmod 700 ${dir}`);
  }
}
