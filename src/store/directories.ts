// Creating a folder and its missing parents one level at a time. Node 20's `mkdir(path, {recursive:
// true})` loops forever without yielding when a parent refuses a child with ENOENT (`/proc/nope`: a
// full core for as long as the process lives); here each level is tried once, so every
// failure ends as an error naming the folder.
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** Creates `path` (and its missing parents) with `mode`; an existing folder is left as it is. */
export async function makeDirectories(path: string, mode: number): Promise<void> {
  const target = resolve(path);
  try {
    await mkdir(target, { mode });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return requireDirectory(target, error as Error);
    const parent = dirname(target);
    if (code !== 'ENOENT' || parent === target) throw error;
    await makeDirectories(parent, mode);
  }
  try {
    await mkdir(target, { mode });
  } catch (error) {
    // Made by someone else meanwhile; anything else (the parent refuses the child) is final.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    await requireDirectory(target, error as Error);
  }
}

async function requireDirectory(path: string, cause: Error): Promise<void> {
  if (!(await stat(path)).isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`, { cause }), { code: 'ENOTDIR', path });
}
