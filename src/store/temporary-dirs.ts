// Folders that live as long as the process: `outpost demo`'s certhub data directory holds an admin
// key and private keys, which must not stay in /tmp after a Ctrl-C. Each is removed
// when the process exits (the supervisor exits through process.exit after SIGINT or SIGTERM), and by
// removeTemporaryDirs where the process ends otherwise.
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const owned = new Set<string>();

/** A new folder (mode 0700) under the system's temp folder, removed with everything in it at exit. */
export async function makeTemporaryDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  if (owned.size === 0) process.once('exit', removeTemporaryDirs);
  owned.add(dir);
  return dir;
}

/** Removes every folder made by makeTemporaryDir; synchronous, as an 'exit' listener must be. */
export function removeTemporaryDirs(): void {
  for (const dir of owned) rmSync(dir, { recursive: true, force: true });
  owned.clear();
}
