// A folder of a role's own for files that exist only for a moment: uWS reads a certificate's key
// only from a file. Not the shared temp folder: every user of the machine sees the names made there,
// may fill it, and nobody of ours cleans what a crash in that moment leaves behind.
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `<parent>/.scratch`, a folder of ours of mode 0700 (made, or set to 0700 again); its path. Refused
 * when something else stands there: a file, a symbolic link, or a folder of another user.
 */
export function privateScratchDir(parent: string): string {
  const dir = join(parent, '.scratch');
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const found = lstatSync(dir);
  if (!found.isDirectory()) throw new Error(`${dir} is not a folder: the private scratch folder for key files must be one (remove what is there)`);
  const uid = process.getuid?.();
  if (uid !== undefined && found.uid !== uid)
    throw new Error(`${dir} belongs to user ${found.uid}, not to this process's user ${uid}: key files are written only to a folder of our own`);
  chmodSync(dir, 0o700);
  return dir;
}
