// Node 20 is past its end of life; the built binaries must run on Node 22 too. test/run.sh installs
// the npm package node@22 into .cache/node22 before the suite runs.
import { existsSync } from 'node:fs';
import test from 'ava';
import { versionLine } from '../../src/version.js';
import { startFixtureHost } from '../helpers/fixture-host.js';
import { projectPath, runToEnd } from '../helpers/process.js';

const node22 = projectPath('.cache/node22/node_modules/node/bin/node');

test('the Node 22 binary is installed for the smoke test', async (t) => {
  t.true(existsSync(node22), 'run test/install-node.sh 22 (npm test does) to install it');
  const { stdout } = await runToEnd(node22, ['--version']);
  t.regex(stdout, /^v22\./);
});

for (const name of ['outpost', 'certhub', 'certhub-agent', 'netspeed', 'hostwatch', 'qpool']) {
  test(`${name} --version runs on Node 22`, async (t) => {
    const result = await runToEnd(node22, [projectPath(`dist/bin/${name}.js`), '--version']);
    t.is(result.code, 0, result.stderr);
    t.is(result.stdout, `${versionLine(name)}\n`);
  });
}

test('actors, uWS fronts and a cross-thread call work on Node 22', async (t) => {
  const host = await startFixtureHost(t, { fronts: 2 }, node22);
  const response = await fetch(`${host.url}echo?text=on-22`);
  t.is(response.status, 200);
  t.like(await response.json(), { text: 'on-22' });
  host.child.kill('SIGTERM');
  t.is(await host.exited, 0);
});
