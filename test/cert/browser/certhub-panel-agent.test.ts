// What the panel exports, used as it comes by certhub-agent against the same `certhub run --demo`:
// each Fetch CLI line run as written, the Fetch (JSON) file, and the Proxy (JSON) file (its placeholder
// backends edited, as the panel says to) serving both domains with the material it fetched itself.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import type { Page } from 'playwright-core';
import { curlResolve, startAgentProxy, temporaryDir } from '../../helpers/agent-proxy.js';
import { addDomains, demoCerthub, openExportDialog, openPanel, row, unexpected } from '../helpers/certhub-panel.js';
import { projectPath, runToEnd } from '../../helpers/process.js';
import { startProxyBackend } from '../../helpers/proxy-backend.js';

const agent = projectPath('dist/bin/certhub-agent.js');

async function exported(page: Page, label: string): Promise<string> {
  await page.getByLabel(label).check();
  return page.locator('#export-output').inputValue();
}

test('the Fetch CLI lines, the Fetch JSON and the Proxy JSON the panel exports work with certhub-agent unchanged', async (t) => {
  const server = await demoCerthub(t);
  const [web, api] = await addDomains(server, [
    { name: 'web', target: '203.0.113.1' },
    { name: 'api', target: '203.0.113.2' },
  ]);
  const { page, problems } = await openPanel(t, server);
  for (const name of ['web', 'api']) await row(page, `${name}.example.test`).getByRole('checkbox').check();
  await openExportDialog(page);
  const cli = await exported(page, 'Fetch CLI');
  const fetchJson = await exported(page, 'Fetch (JSON)');
  const proxyJson = await exported(page, 'Proxy (JSON)');
  t.deepEqual(unexpected(problems), []);
  const dir = await temporaryDir(t, 'panel-agent-');

  // Each line as the panel wrote it, with only the output folder added.
  const lines = cli.trim().split('\n');
  t.is(lines.length, 2);
  for (const line of lines) {
    const [command, subcommand, ...args] = line.split(' ');
    t.is(`${command} ${subcommand}`, 'certhub-agent fetch');
    const result = await runToEnd(process.execPath, [agent, 'fetch', '--allow-untrusted', ...args, '-o', join(dir, 'cli')]);
    t.is(result.code, 0, result.stderr);
  }
  const served = async (domain: { name: string; token: string }) =>
    ((await (await fetch(`${server.url}api/cert/${domain.name}`, { headers: { authorization: `Bearer ${domain.token}` } })).json()) as { cert_pem: string })
      .cert_pem;
  for (const domain of [web!, api!]) t.is(await readFile(join(dir, 'cli', domain.name, 'cert.pem'), 'utf8'), await served(domain));

  const fetchFile = join(dir, 'fetch.json');
  await writeFile(fetchFile, fetchJson, { mode: 0o600 });
  const fromFile = await runToEnd(process.execPath, [agent, 'fetch', '--allow-untrusted', '-c', fetchFile, '-o', join(dir, 'json')]);
  t.is(fromFile.code, 0, fromFile.stderr);
  for (const domain of [web!, api!]) t.is(await readFile(join(dir, 'json', domain.name, 'cert.pem'), 'utf8'), await served(domain));

  // The Proxy JSON: each placeholder backend replaced by a real one; listening kept on loopback for the test.
  const [webBackend, apiBackend] = await Promise.all([startProxyBackend(t, 'web'), startProxyBackend(t, 'api')]);
  const proxyConfig = JSON.parse(proxyJson) as { server: string; routes: Record<string, { backend: string; token: string }> };
  proxyConfig.routes[web!.name]!.backend = webBackend.address;
  proxyConfig.routes[api!.name]!.backend = apiBackend.address;
  const proxy = await startAgentProxy(t, { ...proxyConfig, host: '127.0.0.1', port: 0, threads: 1, material_dir: join(dir, 'proxy'), allow_untrusted: true });
  // The proxy fetches its routes' material itself once it runs, and has its fronts load it.
  for (const domain of [web!, api!]) await proxy.process.waitFor(new RegExp(`certificate served domain=${domain.name.replaceAll('.', '\\.')} `), 30_000);
  for (const [domain, name] of [
    [web!, 'web'],
    [api!, 'api'],
  ] as const) {
    const answered = await curlResolve(domain.name, proxy.port, '/whoami');
    t.is(answered.code, 0, answered.stderr);
    t.regex(answered.stderr, /subject: .*certhub demo certificate/);
    t.like(JSON.parse(answered.stdout), { name });
  }
});
