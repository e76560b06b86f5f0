// Node 24 is the active LTS, and the uWebSockets.js build outpost depends on (uws-pack 20.0.8) has no
// binary for its ABI (137). There, a command that starts fronts must end at once with one line that
// says so and names the Node.js versions outpost runs on, rather than crash and restart each front
// until the supervisor gives up. test/run.sh installs the npm package node@24 into .cache/node24.
import { existsSync } from 'node:fs';
import test from 'ava';
import { supportedNode } from '../../src/version.js';
import { projectPath, runToEnd } from '../helpers/process.js';

const node24 = projectPath('.cache/node24/node_modules/node/bin/node');

test('the Node 24 binary is installed', async (t) => {
  t.true(existsSync(node24), 'run test/install-node.sh 24 (npm test does) to install it');
  const { stdout } = await runToEnd(node24, ['--version']);
  t.regex(stdout, /^v24\./);
});

test('on a Node.js with no uWebSockets.js binary, outpost demo ends with exit code 1 and one line naming the missing binary and the Node.js versions outpost runs on', async (t) => {
  const result = await runToEnd(node24, [projectPath('dist/bin/outpost.js'), 'demo']);
  t.is(result.code, 1);
  t.is(result.stdout, '', 'no actor started, so nothing was logged');
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  t.is(lines.length, 1, result.stderr);
  t.regex(
    lines[0] ?? '',
    /^outpost: uWebSockets\.js cannot load on Node\.js v24\.\d+\.\d+ \(ABI 137, linux-x64\): Cannot find module '\.\/bin\/uws_linux_x64_137\.node'; outpost runs on Node\.js /,
  );
  t.true(lines[0]?.endsWith(`outpost runs on Node.js ${supportedNode}`), lines[0]);
});
