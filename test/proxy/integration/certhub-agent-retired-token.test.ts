// A token certhub retired (rotated away, or of a removed domain), end to end against a real `certhub
// run --demo`: the 401 says so, certhub logs it once an hour per domain and client and not as the
// failed fetch fail2ban bans on, it takes nothing from the client's allowance of failures, and it is
// remembered across a restart. `fetch --watch` backs off, says what to do, and takes the new token on
// SIGHUP without a restart; the proxy's own fetch backs off and says what to do too.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { certhubDataDir, startCerthub, type RunningCerthub } from '../../helpers/certhub.js';
import { startAgentProxy, temporaryDir } from '../../helpers/agent-proxy.js';
import { addIssuedDomain, rotateToken, startAgent } from '../../helpers/certhub-agent.js';
import { tempDir } from '../../helpers/qpool.js';

/** The fail2ban filter of docs/certhub.md, `<HOST>` as fail2ban reads it. */
const fail2banFilter = /certhub: failed (admin login|certificate fetch) client=\S+/;

function fetchWith(server: RunningCerthub, name: string, token: string): Promise<Response> {
  return fetch(`${server.url}api/cert/${name}`, { headers: { authorization: `Bearer ${token}` } });
}

function count(text: string, pattern: RegExp): number {
  return [...text.matchAll(new RegExp(pattern.source, 'gm'))].length;
}

test('fetch --watch: a rotated token is told as retired and retried at doubling gaps; the new token in the file and SIGHUP make the next fetch succeed', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const { name, token } = await addIssuedDomain(server, 'app');
  const dir = await tempDir(t, 'agent-');
  const config = join(dir, 'fetch.json');
  await writeFile(config, JSON.stringify({ server: server.url, domain: name, token }), { mode: 0o600 });
  const agent = startAgent(t, ['fetch', '--allow-untrusted', '--watch', '--interval', '1', '-c', config, '-o', join(dir, 'certs')]);
  await agent.waitFor(/app\.example\.test: written \(expires/);

  const newToken = await rotateToken(server, 'app');
  await agent.waitFor(/retrying in 2 s, at \S+ \(failure 2 in a row\)/);
  const stderr = agent.stderr();
  t.regex(
    stderr,
    /app\.example\.test: http:\/\/127\.0\.0\.1:\d+ refused the token for app\.example\.test \(HTTP 401\): this token was replaced \(rotated\) on \d{4}-\d\d-\d\d; give certhub-agent the domain's new token; files left as they were; retrying in 1 s, at \d{4}-\S+Z \(failure 1 in a row\)/,
  );
  t.regex(
    stderr,
    /app\.example\.test: certhub retired this token: certhub-agent must be given the domain's new token; put it in \S+fetch\.json, then send SIGHUP \(systemctl reload certhub-agent-fetch\) to use it without a restart/,
  );
  t.false(stderr.includes(token) || stderr.includes(newToken), 'no token is printed');

  await writeFile(config, '{"server": ');
  agent.child.kill('SIGHUP');
  await agent.waitFor(/received SIGHUP: reload refused, the running settings stay: .*fetch\.json/);

  await writeFile(config, JSON.stringify({ server: server.url, domain: name, token: newToken }), { mode: 0o600 });
  const unchangedBefore = count(agent.stdout(), /app\.example\.test: unchanged/);
  agent.child.kill('SIGHUP');
  const reloaded = /received SIGHUP: read \S+fetch\.json again: token of app\.example\.test changed; fetching every domain again now/;
  await agent.waitFor(reloaded);
  await agent.waitFor(/app\.example\.test: unchanged \(expires/);
  t.true(count(agent.stdout(), /app\.example\.test: unchanged/) > unchangedBefore);
  // The fetch's line may come in the same read as the reload's: looked for after the reload's line, not after what had been read.
  const stdout = agent.stdout();
  t.regex(stdout.slice(stdout.search(reloaded)), /app\.example\.test: unchanged \(expires/, 'a fetch after the reload succeeded');
  t.false(agent.stdout().includes(newToken), 'the new token is not printed');

  agent.child.kill('SIGHUP');
  await agent.waitFor(/received SIGHUP: read \S+fetch\.json again: nothing changed/);
  agent.child.kill('SIGTERM');
  t.is(await agent.exited, 0, 'SIGHUP never ended it; SIGTERM does, with 0');

  await server.waitFor(/fetch with a retired token for app\.example\.test/);
  const log = server.stderr();
  t.is(
    count(log, /certhub: fetch with a retired token for app\.example\.test client=127\.0\.0\.1/),
    1,
    'logged once for the hour, however often the agent retried',
  );
  t.false(fail2banFilter.test(log), `no line fail2ban bans on:\n${log}`);
});

test('certhub: a retired token answers a 401 saying so, uses no allowance of failures, and is remembered across a restart; a guess still is a failed fetch', async (t) => {
  const dataDir = await certhubDataDir(t);
  let server = await startCerthub(t, dataDir);
  const app = await addIssuedDomain(server, 'app');
  const web = await addIssuedDomain(server, 'web');
  await rotateToken(server, 'app');
  t.is((await server.admin('api/admin/domains/web', { method: 'DELETE' })).status, 204);

  // More than the 20 failures a client may make in a minute: none of them is counted.
  for (let attempt = 0; attempt < 25; attempt++) {
    const answer = await fetchWith(server, app.name, app.token);
    t.is(answer.status, 401);
    t.regex(
      ((await answer.json()) as { error: string }).error,
      /^this token was replaced \(rotated\) on \d{4}-\d\d-\d\d; give certhub-agent the domain's new token$/,
    );
  }
  const removed = await fetchWith(server, web.name, web.token);
  t.is(removed.status, 401);
  t.regex(
    ((await removed.json()) as { error: string }).error,
    /^this token's domain web\.example\.test was removed from certhub on \d{4}-\d\d-\d\d; the token is no longer valid$/,
  );
  const guess = await fetchWith(server, app.name, `chd_${'x'.repeat(43)}`);
  t.is(guess.status, 401);
  t.deepEqual(await guess.json(), { error: 'invalid token' });
  // Log lines come from the front's thread after its answers: the guess's line, last asked, is the last written.
  await server.waitFor(fail2banFilter);
  t.is(count(server.stderr(), /fetch with a retired token for app\.example\.test client=127\.0\.0\.1/), 1);
  t.is(count(server.stderr(), /fetch with a retired token for web\.example\.test client=127\.0\.0\.1/), 1);
  t.is(count(server.stderr(), /certhub: failed certificate fetch/), 1, 'the guess alone is a failed fetch');

  const retiredFile = await readFile(join(dataDir, 'retired-tokens.json'), 'utf8');
  t.false(retiredFile.includes(app.token) || retiredFile.includes(web.token), 'digests are kept, never a token');
  server.child.kill('SIGTERM');
  await server.exited;
  server = await startCerthub(t, dataDir);
  const afterRestart = await fetchWith(server, app.name, app.token);
  t.is(afterRestart.status, 401);
  t.regex(((await afterRestart.json()) as { error: string }).error, /replaced \(rotated\)/);
});

test('certhub-agent proxy: a rotated token is told as retired, with what to do, and retried at doubling gaps', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const app = await addIssuedDomain(server, 'app');
  const materialDir = await temporaryDir(t, 'proxy-retired-material-');
  const proxy = await startAgentProxy(t, {
    server: server.url,
    allow_untrusted: true,
    routes: { [app.name]: { backend: '127.0.0.1:9', token: app.token } },
    host: '127.0.0.1',
    port: 0,
    threads: 1,
    material_dir: materialDir,
    fetch_interval_seconds: 1,
  });
  // The front may have read the files itself at start, before the fetcher asked it to.
  await proxy.process.waitFor(/fetch: app\.example\.test: the new certificate is served by all 1 front \(/);

  await rotateToken(server, 'app');
  await proxy.process.waitFor(
    /refused the token for app\.example\.test \(HTTP 401\): this token was replaced \(rotated\) on \d{4}-\d\d-\d\d; give certhub-agent the domain's new token \(failure 2\); next fetch in 2 s, at \S+Z/,
  );
  const log = proxy.process.stderr();
  t.regex(log, /\(HTTP 401\): this token was replaced \(rotated\) on \S+ give certhub-agent the domain's new token \(failure 1\); next fetch in 1 s, at \S+Z/);
  t.regex(
    log,
    /fetch: certhub retired the token of app\.example\.test: the proxy must be given the domain's new token: put it in the route's token in the proxy's config file, then send SIGHUP \(systemctl reload certhub-agent-proxy\); until then it is tried again ever less often, up to every 6 hours/,
  );
  t.false(log.includes(app.token), 'no token is printed');
});
