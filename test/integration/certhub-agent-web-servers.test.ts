// The manual's web server example (examples/certhub-agent/nginx.conf) on what `certhub-agent fetch`
// wrote from a real `certhub run --demo`: a real nginx started on the example, its paths and port
// those of the test, presents exactly the fetched chain, as `openssl s_client -showcerts` sees it.
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { materialPaths } from '../../actors/proxy/client/material-files.js';
import { targetsFromFile } from '../../actors/proxy/client/fetch-targets.js';
import { reservePort } from '../../src/http/port.js';
import { certhubDataDir, startCerthub } from '../helpers/certhub.js';
import { addIssuedDomain, runAgent } from '../helpers/certhub-agent.js';
import { projectPath, runToEnd, startProcess } from '../helpers/process.js';
import { tempDir } from '../helpers/qpool.js';

const examples = projectPath('examples/certhub-agent');
const exampleDir = '/var/lib/certhub-agent-fetch/certs';
const exampleDomain = 'app.example.net';
const nginxBin = '/usr/sbin/nginx';

/** The PEM certificates in `text`, in order, each normalised to end in one newline. */
function certificatesIn(text: string): string[] {
  return [...text.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)].map((match) => `${match[0]}\n`);
}

/** The manual's example with the test's material folder, domain and loopback port. */
async function exampleFor(file: string, dir: string, domain: string): Promise<string> {
  const text = await readFile(join(examples, file), 'utf8');
  return text.replaceAll(`${exampleDir}/${exampleDomain}/`, `${dir}/${domain}/`).replaceAll(exampleDomain, domain);
}

test('nginx started on the manual\'s example serves the fetched fullchain and key: s_client sees the fetched chain', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const { name, token } = await addIssuedDomain(server, 'app');
  const dir = await tempDir(t, 'web-servers-');
  const out = join(dir, 'certs');
  const fetched = await runAgent(['fetch', '--allow-untrusted', '-s', server.url, '-t', token, '-d', name, '-o', out]);
  t.is(fetched.code, 0, fetched.stderr);

  const port = await reservePort('127.0.0.1');
  const site = (await exampleFor('nginx.conf', out, name)).replace('listen 443 ssl;', `listen 127.0.0.1:${port} ssl;`).replace(/^\s*listen \[::\]:443 ssl;\n/m, '');
  t.true(site.includes(`listen 127.0.0.1:${port} ssl;`) && !site.includes(':443'), 'the example listens where the test expects');
  await mkdir(join(dir, 'nginx'), { recursive: true });
  const config = join(dir, 'nginx', 'nginx.conf');
  await writeFile(
    config,
    [
      'daemon off;',
      'master_process off;',
      `pid ${join(dir, 'nginx', 'nginx.pid')};`,
      `error_log ${join(dir, 'nginx', 'error.log')} info;`,
      'events {}',
      'http {',
      `  access_log off;`,
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${join(dir, 'nginx', kind)};`),
      site,
      '}',
      '',
    ].join('\n'),
  );
  const checked = await runToEnd(nginxBin, ['-t', '-p', join(dir, 'nginx'), '-c', config]);
  t.is(checked.code, 0, checked.stderr);
  const nginx = startProcess(t, nginxBin, ['-p', join(dir, 'nginx'), '-c', config]);
  // nginx logs nothing once it listens: ready is when the port answers.
  const presented = await showCerts(port, name, nginx.exited);
  const paths = materialPaths(out, name);
  const fullchain = await readFile(paths.fullchain, 'utf8');
  t.true(certificatesIn(fullchain).length >= 2, 'the fetched full chain has the leaf and its issuer');
  t.deepEqual(certificatesIn(presented), certificatesIn(fullchain), 'nginx presents the fetched chain, in order');
  t.is((await stat(paths.key)).mode & 0o777, 0o600);
});

test('the manual\'s Fetch JSON example loads; combined_pem writes combined.pem (0600): the full chain then the key, as HAProxy\'s example takes it', async (t) => {
  const targets = await targetsFromFile(join(examples, 'fetch.json'));
  t.deepEqual(targets.map(({ domain, combinedPem }) => ({ domain, combinedPem })), [{ domain: exampleDomain, combinedPem: true }]);
  t.regex(await readFile(join(examples, 'haproxy.cfg'), 'utf8'), new RegExp(`crt ${exampleDir}/${exampleDomain}/combined\\.pem`));

  const server = await startCerthub(t, await certhubDataDir(t));
  const { name, token } = await addIssuedDomain(server, 'app');
  const dir = await tempDir(t, 'web-servers-');
  const config = join(dir, 'fetch.json');
  await writeFile(config, JSON.stringify({ server: server.url, domains: { [name]: { token } }, combined_pem: true }), { mode: 0o600 });
  const fetched = await runAgent(['fetch', '--allow-untrusted', '-c', config, '-o', dir]);
  t.is(fetched.code, 0, fetched.stderr);
  const paths = materialPaths(dir, name);
  const [combined, fullchain, key] = await Promise.all([paths.combined, paths.fullchain, paths.key].map((path) => readFile(path, 'utf8')));
  t.is(combined, `${fullchain}${key}`);
  t.is((await stat(paths.combined)).mode & 0o777, 0o600);

  const again = await runAgent(['fetch', '--allow-untrusted', '-c', config, '-o', dir]);
  t.regex(again.stdout, /unchanged in/, 'an unchanged combined.pem is not rewritten');
});

/**
 * `openssl s_client -showcerts` against the port, once it accepts: s_client is retried while the
 * connection is refused (nginx still starting), for as long as nginx runs.
 */
async function showCerts(port: number, servername: string, exited: Promise<unknown>): Promise<string> {
  let running = true;
  void exited.then(() => (running = false));
  for (;;) {
    const result = await runToEnd('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-servername', servername, '-showcerts'], {}, '');
    if (result.code === 0) return result.stdout;
    if (!running || !/Connection refused|connect:errno/i.test(result.stderr)) throw new Error(`openssl s_client failed: ${result.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
