// The key files uWS needs for a moment (it reads a certificate's key only from a file) are written to
// the proxy's own `<material_dir>/.scratch` (0700), never to the shared temp folder.
import { watch } from 'node:fs';
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { presentedCertificate, startAgentProxy, temporaryDir, writeTestMaterial } from '../../helpers/agent-proxy.js';
import { routeToken } from '../../helpers/two-route-proxy.js';

test('the proxy writes a key for uWS only under <material_dir>/.scratch, mode 0700, and leaves nothing there or in the temp folder', async (t) => {
  const temp = await temporaryDir(t, 'proxy-tmpdir-');
  // inotify reports in order: once the test's marker file is reported, every earlier change in the folder is too.
  const marker = 'marker-written-by-the-test';
  const seen: string[] = [];
  let markerReported = () => {};
  const markerSeen = new Promise<void>((resolve) => (markerReported = resolve));
  const watcher = watch(temp, (_event, name) => {
    seen.push(String(name));
    if (name === marker) markerReported();
  });
  t.teardown(() => watcher.close());
  const materialDir = await temporaryDir(t, 'proxy-scratch-');
  await writeTestMaterial(materialDir, 'alpha.test', '0a');
  const proxy = await startAgentProxy(
    t,
    {
      server: 'https://certhub.example.test/',
      fetch: false,
      routes: { 'alpha.test': { backend: '127.0.0.1:9', token: routeToken } },
      host: '127.0.0.1',
      port: 0,
      material_dir: materialDir,
      threads: 1,
    },
    { TMPDIR: temp },
  );
  t.is((await presentedCertificate(proxy.port, 'alpha.test')).subject, 'CN=alpha.test');

  await writeFile(join(temp, marker), '');
  await markerSeen;
  t.deepEqual(
    seen.filter((name) => name.startsWith('.tls-')),
    [],
    'no key folder in the temp folder',
  );

  const scratch = join(materialDir, '.scratch');
  t.is((await stat(scratch)).mode & 0o777, 0o700);
  t.deepEqual(await readdir(scratch), [], 'each key file is removed once uWS has read it');
});
