// `npm start` (outpost demo) makes a certhub data directory with an admin key and private keys under
// the temp folder; it must be gone once the demo stops on Ctrl-C or SIGTERM. The
// demo runs with TMPDIR set to a folder of the test's own, so what it leaves there is what it left.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { projectPath, startProcess } from '../helpers/process.js';
import { tempDir } from '../helpers/qpool.js';

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  test(`outpost demo removes its data directory (admin key, private keys) when stopped with ${signal}`, async (t) => {
    const temp = await tempDir(t, 'demo-tmp-');
    const demo = startProcess(t, process.execPath, [projectPath('dist/bin/outpost.js'), 'demo'], { TMPDIR: temp });
    // A bound on a hang: every role starts, and the machine may be loaded.
    await demo.waitFor(/^ready in \d+ms/m, 90_000);
    const made = (await readdir(temp)).filter((name) => name.startsWith('certhub-demo-'));
    t.is(made.length, 1, `the demo made its data directory in TMPDIR: ${made.join(', ')}`);
    t.true((await stat(join(temp, made[0] ?? '', 'config.json'))).isFile(), 'with the admin key in it');

    demo.child.kill(signal);
    t.is(await demo.exited, 0, demo.stderr());
    t.deepEqual(await readdir(temp), [], 'nothing left in TMPDIR');
  });
}
