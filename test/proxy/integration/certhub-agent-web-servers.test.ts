// The manual's web server examples (examples/certhub-agent/) on what `certhub-agent fetch` wrote from
// a real `certhub run --demo`: a real nginx, HAProxy and Apache (Debian's, in /usr/sbin) each started
// on its example, its paths and port those of the test, present exactly the fetched chain, as
// `openssl s_client -showcerts` sees it.
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { materialPaths } from '../../../actors/proxy/client/material-files.js';
import { targetsFromFile } from '../../../actors/proxy/client/fetch-targets.js';
import { reservePort } from '../../../src/http/port.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addIssuedDomain, runAgent } from '../../helpers/certhub-agent.js';
import { projectPath, runToEnd, startProcess } from '../../helpers/process.js';
import { tempDir } from '../../helpers/qpool.js';

const examples = projectPath('examples/certhub-agent');
const exampleDir = '/var/lib/certhub-agent-fetch/certs';
const exampleDomain = 'app.example.net';

/** The PEM certificates in `text`, in order, each normalised to end in one newline. */
function certificatesIn(text: string): string[] {
  return [...text.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)].map((match) => `${match[0]}\n`);
}

/** The manual's example with the test's material folder, domain and loopback port. */
async function exampleFor(file: string, dir: string, domain: string): Promise<string> {
  const text = await readFile(join(examples, file), 'utf8');
  return text.replaceAll(`${exampleDir}/${exampleDomain}/`, `${dir}/${domain}/`).replaceAll(exampleDomain, domain);
}

test("nginx started on the manual's example serves the fetched fullchain and key: s_client sees the fetched chain", async (t) => {
  const { dir, out, name } = await fetchedMaterial(t);
  const port = await reservePort('127.0.0.1');
  const site = (await exampleFor('nginx.conf', out, name))
    .replace('listen 443 ssl;', `listen 127.0.0.1:${port} ssl;`)
    .replace(/^\s*listen \[::\]:443 ssl;\n/m, '');
  t.true(site.includes(`listen 127.0.0.1:${port} ssl;`) && !site.includes(':443'), 'the example listens where the test expects');
  const prefix = join(dir, 'nginx');
  await mkdir(prefix, { recursive: true });
  const config = join(prefix, 'nginx.conf');
  await writeFile(
    config,
    [
      'daemon off;',
      'master_process off;',
      `pid ${join(prefix, 'nginx.pid')};`,
      `error_log ${join(prefix, 'error.log')} info;`,
      'events {}',
      'http {',
      '  access_log off;',
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${join(prefix, kind)};`),
      site,
      '}',
      '',
    ].join('\n'),
  );
  const checked = await runToEnd('/usr/sbin/nginx', ['-t', '-p', prefix, '-c', config]);
  t.is(checked.code, 0, checked.stderr);
  const nginx = startProcess(t, '/usr/sbin/nginx', ['-p', prefix, '-c', config]);
  await presentsFetchedChain(t, { port, name, out, exited: nginx.exited });
});

test("HAProxy started on the manual's example serves the fetched combined.pem: s_client sees the fetched chain", async (t) => {
  const { dir, out, name } = await fetchedMaterial(t, ['--combined-pem']);
  const port = await reservePort('127.0.0.1');
  const example = await exampleFor('haproxy.cfg', out, name);
  t.true(example.includes('bind :443 ssl crt '), 'the example binds where the test expects');
  const config = join(dir, 'haproxy.cfg');
  await writeFile(config, example.replace('bind :443 ssl crt ', `bind 127.0.0.1:${port} ssl crt `));
  const checked = await runToEnd('/usr/sbin/haproxy', ['-c', '-f', config]);
  t.is(checked.code, 0, `${checked.stdout}${checked.stderr}`);
  const haproxy = startProcess(t, '/usr/sbin/haproxy', ['-db', '-f', config]);
  await presentsFetchedChain(t, { port, name, out, exited: haproxy.exited });
});

test("Apache started on the manual's example serves the fetched fullchain and key: s_client sees the fetched chain", async (t) => {
  const { dir, out, name } = await fetchedMaterial(t);
  const port = await reservePort('127.0.0.1');
  const example = await exampleFor('apache.conf', out, name);
  t.true(example.includes('<VirtualHost *:443>'), 'the example listens where the test expects');
  const modules = ['mpm_event', 'authz_core', 'socache_shmcb', 'ssl', 'proxy', 'proxy_http'];
  const config = join(dir, 'apache2.conf');
  await writeFile(
    config,
    [
      ...modules.map((module) => `LoadModule ${module}_module /usr/lib/apache2/modules/mod_${module}.so`),
      'ServerName localhost',
      `Listen 127.0.0.1:${port}`,
      `DefaultRuntimeDir ${dir}`,
      `PidFile ${join(dir, 'apache2.pid')}`,
      `ErrorLog ${join(dir, 'apache2-error.log')}`,
      example.replace('<VirtualHost *:443>', `<VirtualHost 127.0.0.1:${port}>`),
      '',
    ].join('\n'),
  );
  const checked = await runToEnd('/usr/sbin/apache2', ['-t', '-f', config]);
  t.is(checked.code, 0, `${checked.stdout}${checked.stderr}`);
  const apache = startProcess(t, '/usr/sbin/apache2', ['-X', '-f', config]);
  await presentsFetchedChain(t, { port, name, out, exited: apache.exited });
});

test("the manual's Fetch JSON example loads; combined_pem writes combined.pem (0600): the full chain then the key, as HAProxy's example takes it", async (t) => {
  const targets = await targetsFromFile(join(examples, 'fetch.json'));
  t.deepEqual(
    targets.map(({ domain, combinedPem }) => ({ domain, combinedPem })),
    [{ domain: exampleDomain, combinedPem: true }],
  );
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

/** A domain issued by a real `certhub run --demo`, fetched by `certhub-agent fetch` into `<dir>/certs`. */
async function fetchedMaterial(t: ExecutionContext, flags: string[] = []): Promise<{ dir: string; out: string; name: string }> {
  const server = await startCerthub(t, await certhubDataDir(t));
  const { name, token } = await addIssuedDomain(server, 'app');
  const dir = await tempDir(t, 'web-servers-');
  const out = join(dir, 'certs');
  const fetched = await runAgent(['fetch', '--allow-untrusted', '-s', server.url, '-t', token, '-d', name, '-o', out, ...flags]);
  if (fetched.code !== 0) throw new Error(`fetch failed: ${fetched.stderr}`);
  return { dir, out, name };
}

/** The server on `port` presents, for `name`, exactly the certificates of the fetched fullchain.pem, in order. */
async function presentsFetchedChain(
  t: ExecutionContext,
  { port, name, out, exited }: { port: number; name: string; out: string; exited: Promise<unknown> },
): Promise<void> {
  const presented = certificatesIn(await showCerts(port, name, exited));
  const fetched = certificatesIn(await readFile(materialPaths(out, name).fullchain, 'utf8'));
  t.true(fetched.length >= 1, 'the fetched full chain holds the leaf');
  t.deepEqual(presented, fetched, 'the server presents the fetched chain, in order');
}

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
