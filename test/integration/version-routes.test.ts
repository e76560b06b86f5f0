// Every server answers GET /api/version with the same fields, product, version, api_version and the
// commit the build was made from, and lists it in its /api/spec; `--version` prints the commit too.
// The build under test is made from this git work tree, so the commit is there.
import { readFile } from 'node:fs/promises';
import test, { type ExecutionContext } from 'ava';
import type { BuildInfo } from '../../src/version.js';
import { version } from '../../src/version.js';
import { certhubDataDir, startCerthub } from '../helpers/certhub.js';
import { DiodeDouble } from '../helpers/diode-double.js';
import { startHostwatch } from '../helpers/hostwatch.js';
import { startNetspeedServer } from '../helpers/netspeed.js';
import { projectPath, runToEnd } from '../helpers/process.js';
import { freeListen, startServe, tempDir, writeConfig } from '../helpers/qpool.js';

const recorded = JSON.parse(await readFile(projectPath('dist/build-info.json'), 'utf8')) as BuildInfo;

test('the build recorded the commit of this work tree', (t) => {
  t.regex(recorded.commit ?? '', /^[0-9a-f]{40}(-dirty)?$/);
});

async function checkVersionRoute(t: ExecutionContext, url: string, product: string, hasSpec: boolean): Promise<void> {
  const response = await fetch(`${url}api/version`);
  t.is(response.status, 200);
  t.regex(response.headers.get('content-type') ?? '', /^application\/json/);
  t.deepEqual(await response.json(), { product, version, api_version: 1, commit: recorded.commit });
  if (!hasSpec) return;
  const spec = (await (await fetch(`${url}api/spec`)).json()) as { paths: Record<string, { get?: { responses?: Record<string, unknown> } }> };
  t.truthy(spec.paths['/api/version']?.get?.responses?.['200'], `${product}'s /api/spec lists /api/version`);
}

test('certhub answers /api/version with the commit', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  await checkVersionRoute(t, server.url, 'certhub', true);
});

test('qpool serve answers /api/version with the commit', async (t) => {
  const diode = await DiodeDouble.create(t);
  t.teardown(() => diode.cleanup());
  const config = await writeConfig(await tempDir(t), { server: { listen: await freeListen(), receive_command: diode.receiveCommand('auto-stream-recv') } });
  const serve = await startServe(t, config, diode.env);
  await checkVersionRoute(t, serve.url, 'qpool', true);
});

test('hostwatch answers /api/version with the commit', async (t) => {
  const hostwatch = await startHostwatch(t);
  await checkVersionRoute(t, hostwatch.url, 'hostwatch', true);
});

test('netspeed server answers /api/version with the commit, and keeps /api/info', async (t) => {
  const server = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '-q']);
  await checkVersionRoute(t, server.url, 'netspeed', false);
  t.like(await (await fetch(`${server.url}api/info`)).json(), { server: 'netspeed', version });
});

test('--version prints the commit the build was made from', async (t) => {
  const shown = await runToEnd(process.execPath, [projectPath('dist/bin/certhub.js'), '--version']);
  t.is(shown.code, 0);
  t.is(shown.stdout, `certhub ${version} (commit ${recorded.commit})\n`);
});
