// certhub-agent fetch against a real `certhub run --demo` over real sockets: the files it writes, the
// rewrite only on change and the reload command, the panel's Fetch JSON forms, and every failure
// leaving the files as they were with a message that says what went wrong.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import test from 'ava';
import type { FetchManyExport, FetchOneExport } from '../../../actors/proxy/agent-exports.js';
import { fetchCertificate } from '../../../actors/proxy/client/fetch-certificate.js';
import { CerthubServers } from '../../../actors/proxy/client/certhub-servers.js';
import { CertificateFetchError } from '../../../actors/proxy/client/fetch-failure.js';
import { certhubDataDir, startCerthub } from '../../helpers/certhub.js';
import { addIssuedDomain, agentBin, materialState, rotateToken, runAgent, startAgent } from '../../helpers/certhub-agent.js';
import { tempDir } from '../../helpers/qpool.js';
import { startStallingServer } from '../../helpers/stalling-server.js';

/** A reload command that appends CERTHUB_AGENT_DOMAINS to `marker`, one line a run. */
function markerCommand(marker: string): string {
  return JSON.stringify([process.execPath, '-e', "require('node:fs').appendFileSync(process.argv[1], process.env.CERTHUB_AGENT_DOMAINS + '\\n')", marker]);
}

/** Runs the agent with `dir` as its working directory. */
function runInDir(dir: string, args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [agentBin, ...args], { cwd: dir }, (error, _stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stderr }),
    );
  });
}

async function markerLines(marker: string): Promise<string[]> {
  return (await readFile(marker, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '');
}

test('fetch writes the material as served (key 0600, folder 0700); a second fetch rewrites nothing and runs no reload; a damaged file is put back and reload runs', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const { name, token } = await addIssuedDomain(server, 'app');
  const dir = await tempDir(t, 'agent-');
  const out = join(dir, 'certs');
  const marker = join(dir, 'reloads');
  const args = ['fetch', '--allow-untrusted', '-s', server.url, '-t', token, '-d', name, '-o', out, '--reload-cmd', markerCommand(marker)];

  const first = await runAgent(args);
  t.is(first.code, 0, first.stderr);
  t.regex(first.stdout, new RegExp(`^${name.replace(/\./g, '\\.')}: written to .*certs/app\\.example\\.test \\(expires \\d{4}-`, 'm'));
  t.is(first.stderr, '', 'no warning for http:// on loopback');
  const served = (await (await fetch(`${server.url}api/cert/${name}`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
    cert_pem: string;
    chain_pem: string;
    key_pem: string;
  };
  const written = await materialState(out, name);
  t.is(written.cert.content, served.cert_pem);
  t.is(written.chain.content, served.chain_pem);
  t.is(written.fullchain.content, `${served.cert_pem}${served.chain_pem}`);
  t.is(written.key.content, served.key_pem);
  t.is(written.key.mode, 0o600);
  t.is(written.folderMode, 0o700);
  t.deepEqual(await markerLines(marker), [name], 'the reload command ran once, told the changed domain');

  const second = await runAgent(args);
  t.is(second.code, 0, second.stderr);
  t.regex(second.stdout, /unchanged in/);
  t.deepEqual(await materialState(out, name), written, 'no file rewritten');
  t.deepEqual(await markerLines(marker), [name], 'no reload for unchanged material');

  await writeFile(join(out, name, 'fullchain.pem'), 'damaged\n');
  const third = await runAgent(args);
  t.is(third.code, 0, third.stderr);
  const repaired = await materialState(out, name);
  t.is(repaired.fullchain.content, written.fullchain.content);
  t.is(repaired.key.ino, written.key.ino, 'the unchanged key is not rewritten');
  t.deepEqual(await markerLines(marker), [name, name]);
});

test("the panel's Fetch CLI line and Fetch JSON (flat and as a domains map) work unchanged, once only the owner may read the JSON; a label alone is refused (any label.* certificate would match it)", async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const [app, web] = await Promise.all([addIssuedDomain(server, 'app'), addIssuedDomain(server, 'web')]);
  const dir = await tempDir(t, 'agent-');
  const many: FetchManyExport = { server: server.url, domains: { [app.name]: { token: app.token }, [web.name]: { token: web.token } } };
  const one: FetchOneExport = { server: server.url.replace(/\/$/, ''), domain: web.name, token: web.token };
  await writeFile(join(dir, 'many.json'), JSON.stringify(many, null, 2));
  await chmod(join(dir, 'many.json'), 0o644);
  await writeFile(join(dir, 'one.json'), JSON.stringify(one, null, 2), { mode: 0o600 });

  // The Fetch CLI export, word for word: without -o the material goes to ./certs.
  const line = await runInDir(dir, ['fetch', '--allow-untrusted', '-s', server.url, '-t', app.token, '-d', app.name]);
  t.is(line.code, 0, line.stderr);
  t.regex((await materialState(join(dir, 'certs'), app.name)).cert.content, /^-----BEGIN CERTIFICATE-----/);

  const open = await runAgent(['fetch', '--allow-untrusted', '-c', join(dir, 'many.json'), '-o', join(dir, 'map')]);
  t.is(open.code, 2, open.stderr);
  t.regex(open.stderr, /many\.json is readable by group or others \(mode 0644\); it holds tokens: run chmod 600 \S+many\.json/);
  t.false(existsSync(join(dir, 'map')), 'nothing fetched with tokens others may have read');
  await chmod(join(dir, 'many.json'), 0o600);
  const fromMap = await runAgent(['fetch', '--allow-untrusted', '-c', join(dir, 'many.json'), '-o', join(dir, 'map')]);
  t.is(fromMap.code, 0, fromMap.stderr);
  for (const domain of [app, web]) t.regex((await materialState(join(dir, 'map'), domain.name)).cert.content, /^-----BEGIN CERTIFICATE-----/);

  const fromFlat = await runAgent(['fetch', '--allow-untrusted', '-c', join(dir, 'one.json'), '-o', join(dir, 'flat')]);
  t.is(fromFlat.code, 0, fromFlat.stderr);
  t.is(fromFlat.stderr, '', 'no warning for a 0600 file');
  t.is((await materialState(join(dir, 'flat'), web.name)).key.content, (await materialState(join(dir, 'map'), web.name)).key.content);

  await writeFile(join(dir, 'label.json'), JSON.stringify({ ...one, domain: 'web' }), { mode: 0o600 });
  const label = await runAgent(['fetch', '--allow-untrusted', '-c', join(dir, 'label.json'), '-o', join(dir, 'label')]);
  t.is(label.code, 2);
  t.regex(label.stderr, /label\.json: domain must have at least 2 labels .*: give the full name/);

  const both = await runAgent(['fetch', '--allow-untrusted', '-c', join(dir, 'one.json'), '-t', web.token]);
  t.is(both.code, 2);
  t.regex(both.stderr, /either -c, --config FILE or -s, -t and -d, not both/);
});

test('a rotated token: exit 1 saying the token was replaced, the files as they were; the server stopped: exit 1, unreachable', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const { name, token } = await addIssuedDomain(server, 'app');
  const out = await tempDir(t, 'agent-');
  t.is((await runAgent(['fetch', '--allow-untrusted', '-s', server.url, '-t', token, '-d', name, '-o', out])).code, 0);
  const before = await materialState(out, name);

  await rotateToken(server, 'app');
  const refused = await runAgent(['fetch', '--allow-untrusted', '-s', server.url, '-t', token, '-d', name, '-o', out]);
  t.is(refused.code, 1);
  t.regex(
    refused.stderr,
    /refused the token for app\.example\.test \(HTTP 401\): this token was replaced \(rotated\) on \d{4}-\d\d-\d\d; give certhub-agent the domain's new token/,
  );
  t.false(refused.stderr.includes(token), 'the token is not printed');
  t.deepEqual(await materialState(out, name), before);

  server.child.kill('SIGTERM');
  await server.exited;
  const down = await runAgent(['fetch', '--allow-untrusted', '-s', server.url, '-t', token, '-d', name, '-o', out]);
  t.is(down.code, 1);
  t.regex(down.stderr, /cannot reach http:\/\/127\.0\.0\.1:\d+: connection refused/);
  t.deepEqual(await materialState(out, name), before);
});

test('an answer that is not good material (not JSON, a key of another domain) replaces nothing: exit 1, bad answer', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const [app, web] = await Promise.all([addIssuedDomain(server, 'app'), addIssuedDomain(server, 'web')]);
  const material = async (domain: { name: string; token: string }) =>
    (await (await fetch(`${server.url}api/cert/${domain.name}`, { headers: { authorization: `Bearer ${domain.token}` } })).json()) as Record<string, string>;
  const [good, other] = await Promise.all([material(app), material(web)]);
  const out = await tempDir(t, 'agent-');
  t.is((await runAgent(['fetch', '--allow-untrusted', '-s', server.url, '-t', app.token, '-d', app.name, '-o', out])).code, 0);
  const before = await materialState(out, app.name);

  const answers = [
    { body: '<html>maintenance</html>', message: /with a body that is not JSON/ },
    { body: JSON.stringify({ ...good, key_pem: other.key_pem }), message: /unusable material for app\.example\.test: key_pem does not match the certificate/ },
    { body: JSON.stringify({ ...good, cert_pem: other.cert_pem, key_pem: other.key_pem }), message: /the certificate is not for app\.example\.test/ },
  ];
  for (const answer of answers) {
    const impostor = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(answer.body));
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    try {
      const result = await runAgent([
        'fetch',
        '--allow-untrusted',
        '-s',
        `http://127.0.0.1:${(impostor.address() as AddressInfo).port}`,
        '-t',
        app.token,
        '-d',
        app.name,
        '-o',
        out,
      ]);
      t.is(result.code, 1);
      t.regex(result.stderr, answer.message);
    } finally {
      impostor.close();
    }
  }
  t.deepEqual(await materialState(out, app.name), before);
});

test('failed token checks are rate limited by certhub: the client reports 429 with the Retry-After it was given', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const { name } = await addIssuedDomain(server, 'app');
  let last: unknown;
  // certhub allows a burst of failed checks per address, then answers 429.
  for (let attempt = 0; attempt < 40; attempt++) {
    last = await fetchCertificate({ servers: new CerthubServers([new URL(server.url)]), domain: name, token: 'chd_wrong' }).catch((error: unknown) => error);
    if (last instanceof CertificateFetchError && last.kind === 'rate-limited') break;
  }
  t.true(last instanceof CertificateFetchError);
  const failure = last as CertificateFetchError;
  t.is(failure.kind, 'rate-limited');
  t.regex(failure.message, /HTTP 429, retry after \d+ s/);
  t.true((failure.retryAfterMs ?? 0) > 0);
});

test('a server that accepts and never answers fails the fetch at --timeout, naming it', async (t) => {
  const stalling = await startStallingServer(t, 'accept');
  const out = await tempDir(t, 'agent-');
  const startedAt = performance.now();
  const result = await runAgent([
    'fetch',
    '--allow-untrusted',
    '-s',
    `http://${stalling}`,
    '-t',
    'chd_x',
    '-d',
    'app.example.test',
    '-o',
    out,
    '--timeout',
    '1',
  ]);
  t.is(result.code, 1);
  t.regex(result.stderr, /accepted the connection but sent no complete answer within 1 s/);
  t.true(performance.now() - startedAt >= 1000, 'not before the deadline');
});

test('SIGHUP does not end a single fetch: it says so and goes on', async (t) => {
  let arrived: () => void = () => {};
  const requested = new Promise<void>((resolve) => (arrived = resolve));
  // Never answers: the fetch is still running when the signal comes.
  const server = createServer(() => arrived());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  const out = await tempDir(t, 'agent-');
  const agent = startAgent(t, [
    'fetch',
    '--allow-untrusted',
    '-s',
    `http://127.0.0.1:${port}`,
    '-t',
    'chd_x',
    '-d',
    'app.example.test',
    '-o',
    out,
    '--timeout',
    '60',
  ]);
  await requested;
  agent.child.kill('SIGHUP');
  await agent.waitFor(/received SIGHUP: a single fetch re-reads nothing; it ends when its fetches do/);
  agent.child.kill('SIGTERM');
  t.is(await agent.exited, 'SIGTERM', 'the fetch ran on after SIGHUP until SIGTERM ended it');
});
