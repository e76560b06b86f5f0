// certhub secure by default (issue 23): what it refuses to start with, and what it serves off loopback.
import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { certhubBin, certhubDataDir } from '../helpers/certhub.js';
import { runToEnd } from '../helpers/process.js';

test('a config.json readable by group or others is refused (exit 2), naming the file and its mode', async (t) => {
  for (const mode of [0o640, 0o604]) {
    const dataDir = await certhubDataDir(t);
    const configPath = join(dataDir, 'config.json');
    await chmod(configPath, mode);
    const run = await runToEnd(process.execPath, [certhubBin, 'run', '-d', dataDir, '--demo', '-H', '127.0.0.1', '-p', '0']);
    t.is(run.code, 2);
    t.true(run.stderr.includes(`${configPath} is readable by group or others (mode 0${mode.toString(8)})`), run.stderr);
    t.notRegex(run.stdout, /admin key/);
  }
});
