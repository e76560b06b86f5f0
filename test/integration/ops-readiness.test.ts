// /readyz follows the role's store: a recv whose pool files stop taking writes (a small tmpfs filled
// to the last byte) answers 503 naming the pool, while /healthz stays 200; once the volume has room
// again and the pool has written its files, it is ready again. Needs root (mount), as qpool-disk does.
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { outpostDir, pollText, startOutpost } from '../helpers/outpost.js';
import { fillVolume, smallVolume } from '../helpers/small-volume.js';

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
  t.deepEqual(JSON.parse(notReady), {
    error: 'not ready: recv/pool: the pool files cannot be written',
    reasons: ['recv/pool: the pool files cannot be written'],
  });
  t.is((await fetch(`${url}healthz`)).status, 200);

  await unlink(filler);
  // The pool retries its files at the next request (and the diode receiver's next check).
  await pollText(`${url}api/random`, (_text, status) => status === 200);
  t.is(await pollText(`${url}readyz`, (_text, status) => status === 200), '{"status":"ready"}');
});
