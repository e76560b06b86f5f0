// A config file that holds tokens is refused while group or others may read it, as certhub refuses
// its config.json: certhub-agent proxy (at start and on SIGHUP), outpost run and check with a proxy
// role, and fetch -c.
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { presentedCertificate, startAgentProxy, temporaryDir, writeTestMaterial } from '../helpers/agent-proxy.js';
import { outpostBin } from '../helpers/outpost.js';
import { projectPath, runToEnd, startProcess } from '../helpers/process.js';

const agentBin = projectPath('dist/bin/certhub-agent.js');
const proxyConfig = {
  server: 'https://certhub.example.test/',
  fetch: false,
  routes: { 'app.example.test': { backend: '127.0.0.1:9', token: 'chd_route_token' } },
  host: '127.0.0.1',
  port: 0,
  material_dir: '/nonexistent/material',
};

/** Runs a server command to its exit; one that starts listening instead is reported as `listening` (and killed at teardown). */
async function exitOrListen(t: ExecutionContext, bin: string, args: string[]): Promise<{ code: number | NodeJS.Signals | 'listening'; stderr: string }> {
  const running = startProcess(t, process.execPath, [bin, ...args]);
  const listened = await running.waitFor(/https?:\/\/\S+\/$/m, 30_000).then(
    () => true,
    () => false,
  );
  return { code: listened ? 'listening' : await running.exited, stderr: running.stderr() };
}

async function fileWithMode(dir: string, name: string, content: unknown, mode: number): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, JSON.stringify(content));
  await chmod(path, mode);
  return path;
}

test('certhub-agent proxy refuses a config that group or others may read: exit 2, the mode and chmod 600 named', async (t) => {
  const dir = await temporaryDir(t, 'config-permissions-');
  for (const mode of [0o644, 0o640, 0o604]) {
    const file = await fileWithMode(dir, 'proxy.json', proxyConfig, mode);
    const result = await exitOrListen(t, agentBin, ['proxy', '-c', file]);
    t.is(result.code, 2, result.stderr);
    t.true(
      result.stderr.includes(`${file} is readable by group or others (mode 0${mode.toString(8)}); it holds the route tokens: run chmod 600 ${file}`),
      result.stderr,
    );
  }
});

test('outpost run and check refuse a host config holding proxy tokens that others may read; one without secrets is not refused', async (t) => {
  const dir = await temporaryDir(t, 'config-permissions-');
  const file = await fileWithMode(dir, 'host.json', { roles: { proxy: proxyConfig } }, 0o644);
  for (const command of ['run', 'check']) {
    const result = await exitOrListen(t, outpostBin, [command, '-c', file]);
    t.is(result.code, 2, `${command}: ${result.stderr}`);
    t.true(result.stderr.includes(`${file} is readable by group or others (mode 0644); it holds the route tokens: run chmod 600 ${file}`), result.stderr);
  }
  await chmod(file, 0o600);
  t.is((await runToEnd(process.execPath, [outpostBin, 'check', '-c', file])).code, 0);
  const plain = await fileWithMode(dir, 'plain.json', { roles: { monitor: { host: '127.0.0.1', port: 0 } } }, 0o644);
  const checked = await runToEnd(process.execPath, [outpostBin, 'check', '-c', plain]);
  t.is(checked.code, 0, checked.stderr);
});

test('certhub-agent fetch -c refuses a Fetch JSON that others may read, before any request', async (t) => {
  const dir = await temporaryDir(t, 'config-permissions-');
  const file = await fileWithMode(dir, 'fetch.json', { server: 'http://127.0.0.1:9/', domain: 'app.example.test', token: 'chd_route_token' }, 0o644);
  const result = await runToEnd(process.execPath, [agentBin, 'fetch', '-c', file, '-o', join(dir, 'out')]);
  t.is(result.code, 2, result.stderr);
  t.true(result.stderr.includes(`${file} is readable by group or others (mode 0644); it holds tokens: run chmod 600 ${file}`), result.stderr);
});

test('a SIGHUP that finds the proxy config readable by others is refused, and the running routes stay', async (t) => {
  const materialDir = await temporaryDir(t, 'config-permissions-material-');
  await writeTestMaterial(materialDir, 'alpha.test', '0a');
  await writeTestMaterial(materialDir, 'beta.test', '0b');
  const config = {
    server: 'https://certhub.example.test/',
    fetch: false,
    routes: { 'alpha.test': { backend: '127.0.0.1:9', token: 'chd_route_token' } },
    host: '127.0.0.1',
    port: 0,
    material_dir: materialDir,
    threads: 1,
  };
  const proxy = await startAgentProxy(t, config);
  await writeFile(
    proxy.configPath,
    JSON.stringify({ ...config, routes: { ...config.routes, 'beta.test': { backend: '127.0.0.1:9', token: 'chd_other_token' } } }),
  );
  await chmod(proxy.configPath, 0o644);
  process.kill(proxy.process.child.pid!, 'SIGHUP');
  const [refused] = await proxy.process.waitFor(/reload refused, the running config stays: .*/);
  t.true(refused.includes(`${proxy.configPath} is readable by group or others (mode 0644); it holds the route tokens`), refused);
  await t.throwsAsync(presentedCertificate(proxy.port, 'beta.test'), undefined, 'the route of the refused file is not served');
  t.is((await presentedCertificate(proxy.port, 'alpha.test')).subject, 'CN=alpha.test');
});
