// /readyz follows the role's store: a recv whose pool files stop taking writes (a small tmpfs filled
// to the last byte) answers 503 naming the pool, while /healthz stays 200; once the volume has room
// again and the pool has written its files, it is ready again. Needs root (mount), as qpool-disk does.
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { outpostDir, pollText, startOutpost } from '../helpers/outpost.js';
import { runToEnd } from '../helpers/process.js';

async function mountCommand(args: string[]): Promise<void> {
  const result = await runToEnd('mount', args);
  if (result.code !== 0) throw new Error(`mount ${args.join(' ')} failed (this test needs root): ${result.stdout}${result.stderr}`);
}

async function smallVolume(t: ExecutionContext, dir: string): Promise<string> {
  const mountPoint = join(dir, 'mnt');
  await mkdir(mountPoint);
  await mountCommand(['-t', 'tmpfs', '-o', 'size=2m,mode=0700', 'tmpfs', mountPoint]);
  t.teardown(async () => {
    for (let attempt = 0; attempt < 50; attempt++) {
      if ((await runToEnd('umount', [mountPoint])).code === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await runToEnd('umount', ['-l', mountPoint]);
  });
  return mountPoint;
}

/** Writes a file until the volume has no byte left; returns its path. */
function fillVolume(mountPoint: string): string {
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

test('a recv whose pool files cannot be written is not ready, and is ready again once they can', async (t) => {
  const dir = await outpostDir(t);
  const mountPoint = await smallVolume(t, dir);
  const host = {
    roles: {
      recv: { server: { listen: '127.0.0.1:0', loopback: true, accept_demo: true, max_entries: 1000, pool_file: join(mountPoint, 'pool.bin') } },
      send: { anu: { demo: { enabled: true, values: 64, interval_seconds: 1 } }, diode: { loopback: true } },
    },
  };
  const outpost = await startOutpost(t, dir, host, 1, { APP_POOL_KEY: 'readiness test passphrase' });
  const url = outpost.urls[0]!;
  await pollText(`${url}readyz`, (_text, status) => status === 200);
  await pollText(`${url}api/random`, (_text, status) => status === 200);

  const filler = fillVolume(mountPoint);
  // The journal's last page may take a few more records before a write fails.
  await pollText(`${url}api/random`, (_text, status) => status === 503);
  const notReady = await pollText(`${url}readyz`, (_text, status) => status === 503);
  t.deepEqual(JSON.parse(notReady), { error: 'not ready: recv/pool: the pool files cannot be written', reasons: ['recv/pool: the pool files cannot be written'] });
  t.is((await fetch(`${url}healthz`)).status, 200);

  await unlink(filler);
  // The pool retries its files at the next request (and the diode receiver's next check).
  await pollText(`${url}api/random`, (_text, status) => status === 200);
  t.is(await pollText(`${url}readyz`, (_text, status) => status === 200), '{"status":"ready"}');
});
