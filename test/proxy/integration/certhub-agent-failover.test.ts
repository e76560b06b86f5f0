// certhub-agent fetch given several certhub servers, against real certhub nodes: three `certhub run
// --demo` processes on copies of one data folder (the same domains, tokens and certificates), one of
// them behind a real `certhub-agent proxy`, all in a network namespace of the test's own whose
// /etc/hosts gives certhub.test two addresses, the first with nothing listening. The servers speak
// HTTPS under a private CA for certhub.test, which the agent checks (--ca).
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { materialPaths } from '../../../actors/proxy/client/material-files.js';
import { certhubBin, certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addIssuedDomain, agentBin, rotateToken } from '../../helpers/certhub-agent.js';
import { testChain } from '../../helpers/certificates.js';
import { makeIpv4OnlyHost } from '../../helpers/network-namespaces.js';
import { runToEnd, startProcess, type RunningProcess } from '../../helpers/process.js';
import { tempDir } from '../../helpers/qpool.js';

const name = 'certhub.test';
/** certhub.test's first address, where nothing listens: every connection there is refused. */
const deadAddress = '127.0.0.2';
const liveAddress = '127.0.0.3';

test('the agent moves past a dead server, a dead address of a name and a 5xx, never past a 401, and reports the server it fetched from', async (t) => {
  const host = await makeIpv4OnlyHost(t, { [name]: [deadAddress, liveAddress] });
  const inHost = (command: string, args: readonly string[]) => [...host.command.slice(1), command, ...args];
  const now = Date.now();
  const chain = await testChain(name, { notBefore: new Date(now - 3_600_000), notAfter: new Date(now + 30 * 86_400_000) });
  const files = await tempDir(t, 'failover-');
  const [caFile, certFile, keyFile] = [join(files, 'ca.pem'), join(files, 'cert.pem'), join(files, 'key.pem')];
  await Promise.all([writeFile(caFile, chain.caPem), writeFile(certFile, chain.certPem), writeFile(keyFile, chain.keyPem, { mode: 0o600 })]);

  // One certhub's state: app (the same token on every node) and web, whose token node A alone rotates.
  const dirA = await certhubDataDir(t);
  let seed = await startCerthub(t, dirA);
  const app = await addIssuedDomain(seed, 'app');
  const web = await addIssuedDomain(seed, 'web');
  await stop(seed);
  const [dirB, dirC] = [join(files, 'node-b'), join(files, 'node-c')];
  await Promise.all([cp(dirA, dirB, { recursive: true }), cp(dirA, dirC, { recursive: true })]);
  seed = await startCerthub(t, dirA);
  await rotateToken(seed, 'web');
  await stop(seed);
  const tls = { tls: { cert_file: certFile, key_file: keyFile }, allowed_hosts: [name] };
  await Promise.all([configure(dirA, tls), configure(dirB, tls), configure(dirC, { allowed_hosts: [name] })]);

  const startNode = async (dir: string) => {
    const node = startProcess(t, host.command[0] ?? 'ip', inHost(process.execPath, [certhubBin, 'run', '-d', dir, '-H', liveAddress, '-p', '0', '--demo']));
    const [, port] = await node.waitFor(new RegExp(`^https?://${liveAddress.replaceAll('.', '\\.')}:(\\d+)/$`, 'm'), 60_000);
    return { node, port: Number(port) };
  };
  const [a, b, c] = await Promise.all([startNode(dirA), startNode(dirB), startNode(dirC)]);
  // Node C is reached through a proxy in front of it, as a node behind a load balancer is: with C
  // stopped, the proxy answers 502.
  const proxyMaterial = join(files, 'proxy-material');
  const paths = materialPaths(proxyMaterial, name);
  await mkdir(paths.folder, { recursive: true, mode: 0o700 });
  await Promise.all([writeFile(paths.fullchain, chain.certPem), writeFile(paths.key, chain.keyPem, { mode: 0o600 })]);
  const proxyConfig = join(files, 'proxy.json');
  await writeFile(
    proxyConfig,
    JSON.stringify({
      server: `https://${name}:${a.port}`,
      routes: { [name]: { backend: `${liveAddress}:${c.port}`, token: 'unused' } },
      host: liveAddress,
      port: 0,
      threads: 1,
      material_dir: proxyMaterial,
      fetch: false,
    }),
    { mode: 0o600 },
  );
  const proxy = startProcess(t, host.command[0] ?? 'ip', inHost(process.execPath, [agentBin, 'proxy', '-c', proxyConfig]));
  const [, proxyPort] = await proxy.waitFor(new RegExp(`^https://${liveAddress.replaceAll('.', '\\.')}:(\\d+)/$`, 'm'), 30_000);

  const url = (port: number | string) => `https://${name}:${port}`;
  const out = join(files, 'out');
  const fetch = (servers: string[], domain: { name: string; token: string }) =>
    runToEnd(
      host.command[0] ?? 'ip',
      inHost(process.execPath, [
        agentBin,
        'fetch',
        ...servers.flatMap((server) => ['-s', server]),
        '--ca',
        caFile,
        '--allow-untrusted',
        '-t',
        domain.token,
        '-d',
        domain.name,
        '-o',
        out,
      ]),
    );

  // One name, two addresses: 127.0.0.2 refuses, 127.0.0.3 answers, and TLS checks certhub.test.
  const byName = await fetch([url(a.port)], app);
  t.is(byName.code, 0, byName.stderr);
  t.regex(byName.stdout, /^app\.example\.test: written to /m);
  t.notRegex(byName.stdout, / after /);

  // A dead server first (port 1: nothing listens there), then node A; the two given as one -s with a comma.
  const deadFirst = await fetch([`${url(1)},${url(a.port)}`], app);
  t.is(deadFirst.code, 0, deadFirst.stderr);
  t.true(deadFirst.stdout.includes(`app.example.test: fetched from ${url(a.port)} after ${url(1)} failed: connection refused`), deadFirst.stdout);
  const reported = JSON.parse(await readFile(join(dirA, 'hosts', 'app.example.test.json'), 'utf8')) as { hosts: { server: string | null }[] };
  t.deepEqual(
    reported.hosts.map((each) => each.server),
    [`${url(a.port)}/`],
    'the report names the server the material came from',
  );

  // Through the proxy while C is up; then C stops, the proxy answers 502, and B answers in its place.
  const throughProxy = await fetch([url(Number(proxyPort)), url(b.port)], app);
  t.is(throughProxy.code, 0, throughProxy.stderr);
  t.notRegex(throughProxy.stdout, / after /);
  await stop(c.node);
  const afterStop = await fetch([url(Number(proxyPort)), url(b.port)], app);
  t.is(afterStop.code, 0, afterStop.stderr);
  t.true(afterStop.stdout.includes(`app.example.test: fetched from ${url(b.port)} after ${url(Number(proxyPort))} failed: HTTP 502`), afterStop.stdout);

  // A 401 is an answer: node A refuses web's old token and the agent does not ask B, which would take it.
  const oldWeb = { name: web.name, token: web.token };
  const refused = await fetch([url(a.port), url(b.port)], oldWeb);
  t.is(refused.code, 1);
  t.regex(refused.stderr, new RegExp(`web\\.example\\.test: ${url(a.port).replaceAll('.', '\\.')} refused the token for web\\.example\\.test \\(HTTP 401\\)`));
  t.notRegex(refused.stdout, / after /);
  await t.throwsAsync(readFile(join(dirB, 'hosts', 'web.example.test.json'), 'utf8'), { code: 'ENOENT' }, 'B was not asked');
  const fromB = await fetch([url(b.port)], oldWeb);
  t.is(fromB.code, 0, `B takes the token A refused: ${fromB.stderr}`);
});

async function configure(dir: string, extra: object): Promise<void> {
  const path = join(dir, 'config.json');
  const config = JSON.parse(await readFile(path, 'utf8')) as object;
  await writeFile(path, JSON.stringify({ ...config, ...extra }), { mode: 0o600 });
}

async function stop(running: RunningProcess): Promise<void> {
  running.child.kill('SIGTERM');
  await running.exited;
}
