// The pool passphrase from a file (APP_POOL_KEY_FILE, a systemd credential in the unit) opens the
// same pool as APP_POOL_KEY; a file that cannot be read stops serve with exit code 2.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { DiodeDouble } from '../../helpers/diode-double.js';
import { runToEnd } from '../../helpers/process.js';
import { freeListen, qpoolBin, startServe, tempDir, valueLines, waitForStatus, writeConfig } from '../../helpers/qpool.js';

const passphrase = 'pool key file passphrase';

test('APP_POOL_KEY_FILE gives the passphrase: the pool it writes opens with the same APP_POOL_KEY', async (t) => {
  const dir = await tempDir(t);
  const double = await DiodeDouble.create(t);
  t.teardown(() => double.cleanup());
  const keyFile = join(dir, 'pool-key');
  await writeFile(keyFile, `${passphrase}\n`, { mode: 0o600 });
  const config = await writeConfig(dir, {
    server: { listen: await freeListen(), receive_command: double.receiveCommand('auto-stream-recv'), pool_file: join(dir, 'pool.bin') },
  });
  double.enqueue(valueLines(Array.from({ length: 3 }, () => randomBytes(128).toString('hex'))));
  const first = await startServe(t, config, { APP_POOL_KEY_FILE: keyFile });
  await waitForStatus(first.url, (status) => status.available === 3);
  process.kill(first.process.child.pid ?? 0, 'SIGTERM');
  t.is(await first.process.exited, 0);

  const second = await startServe(t, config, { APP_POOL_KEY: passphrase });
  t.like(await waitForStatus(second.url, (status) => status.available === 3), { available: 3 });
});

test('an APP_POOL_KEY_FILE that cannot be read: exit code 2, the variable named', async (t) => {
  const dir = await tempDir(t);
  const config = await writeConfig(dir, {
    server: { listen: await freeListen(), receive_command: ['diode', 'stream-recv', '--channel', 'qpool'], pool_file: join(dir, 'pool.bin') },
  });
  const result = await runToEnd(process.execPath, [qpoolBin, 'serve', '-c', config], { APP_POOL_KEY: '', APP_POOL_KEY_FILE: join(dir, 'no-such-key') });
  t.is(result.code, 2, result.stderr);
  t.regex(result.stderr, /APP_POOL_KEY_FILE names \S+no-such-key, which cannot be read: ENOENT/);
});
