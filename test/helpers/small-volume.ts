// A small tmpfs for tests of a store whose disk stops taking writes (qpool-disk, ops-readiness): it is
// mounted at `<dir>/mnt`, filled to its last byte on demand, and unmounted after the test whatever its
// outcome. Needs root (mount); the suite runs as root, so a failed mount fails the test.
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { runToEnd } from './process.js';

/** A 2 MiB tmpfs at `<dir>/mnt`. Call after the test's temporary folder is made: teardowns run last first. */
export async function smallVolume(t: ExecutionContext, dir: string): Promise<string> {
  const mountPoint = join(dir, 'mnt');
  await mkdir(mountPoint);
  const mounted = await runToEnd('mount', ['-t', 'tmpfs', '-o', 'size=2m,mode=0700', 'tmpfs', mountPoint]);
  if (mounted.code !== 0) throw new Error(`could not mount a tmpfs at ${mountPoint} (these tests need root and mount): ${mounted.stdout}${mounted.stderr}`);
  t.teardown(async () => {
    for (let attempt = 0; attempt < 50; attempt++) {
      if ((await runToEnd('umount', [mountPoint])).code === 0) return;
      // A server (killed by its own teardown) may still hold files open for a moment.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await runToEnd('umount', ['-l', mountPoint]);
  });
  return mountPoint;
}

/** Writes a file until the volume has no byte left; returns its path. */
export function fillVolume(mountPoint: string): string {
  const path = join(mountPoint, 'filler');
  const fd = openSync(path, 'w');
  try {
    for (const size of [1 << 16, 4096, 1]) {
      const block = Buffer.alloc(size, 0xaa);
      for (;;) {
        try {
          writeSync(fd, block);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}
