// Host tokens on a real `certhub run --demo` with real certhub-agent runs: one agent fetches with the
// domain's token, one with a host token issued for web1. The host list shows the second's report under
// web1 whatever host name it claims; revoking its token makes its next fetch fail with a 401 that says
// so, while the domain's token and another host token fetch on; a rotation of the domain's token
// leaves host tokens alone; removing the domain removes its host tokens. Bad input is a 4xx with its
// JSON error; the audit log and the data folder hold no token.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import type { DomainDetail } from '../../../actors/cert/browser.js';
import type { HostTokenView, IssuedHostToken } from '../../../actors/cert/hosts/host-tokens.js';
import { certhubDataDir, startCerthub, type RunningCerthub } from '../../helpers/certhub.js';
import { addIssuedDomain, rotateToken, runAgent } from '../../helpers/certhub-agent.js';
import { eventually } from '../../helpers/fixture-host.js';
import { tempDir } from '../../helpers/qpool.js';

async function issue(server: RunningCerthub, label: string, host: string): Promise<IssuedHostToken> {
  const answer = await server.admin(`api/admin/domains/${label}/host-tokens`, { method: 'POST', body: { host } });
  if (answer.status !== 201) throw new Error(`issuing a host token for ${host}: HTTP ${answer.status} ${await answer.text()}`);
  return (await answer.json()) as IssuedHostToken;
}

const listed = async (server: RunningCerthub, label: string) =>
  ((await (await server.admin(`api/admin/domains/${label}/host-tokens`)).json()) as { tokens: HostTokenView[] }).tokens;

const fetchStatus = async (server: RunningCerthub, name: string, token: string) =>
  (await fetch(`${server.url}api/cert/${name}`, { headers: { authorization: `Bearer ${token}` } })).status;

test('an agent with a host token fetches and reports as its host; revoked, its fetch fails with 401 saying so while the domain token and other host tokens work on', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const { name, token } = await addIssuedDomain(server, 'app');
  const web1 = await issue(server, 'app', 'web1');
  t.regex(web1.token, /^chh_[A-Za-z0-9_-]{43}$/);
  t.regex(web1.id, /^[0-9a-f]{16}$/);
  t.is(web1.domain, name);
  t.is(web1.host, 'web1');
  t.is(web1.last_used_at, null);
  const web2 = await issue(server, 'app', 'web2');

  const dir = await tempDir(t, 'agents-');
  const agent = (with_: string, out: string, hostName: string) =>
    runAgent(['fetch', '--allow-untrusted', '-s', server.url, '-t', with_, '-d', name, '-o', join(dir, out), '--host-name', hostName]);
  const byDomainToken = await agent(token, 'domain', 'db1');
  t.is(byDomainToken.code, 0, byDomainToken.stderr);
  // The host name it claims is not what the host list shows: the token's host is.
  const byHostToken = await agent(web1.token, 'host', 'claims-to-be-db1');
  t.is(byHostToken.code, 0, byHostToken.stderr);
  t.regex(byHostToken.stdout, /written to/);

  const detail = async () => (await (await server.admin('api/admin/domains/app')).json()) as DomainDetail;
  t.true(await eventually(async () => (await detail()).hosts.length === 2, 10_000), JSON.stringify(await detail()));
  const hosts = (await detail()).hosts.map(({ name: host, host_token }) => ({ host, host_token })).sort((a, b) => (a.host < b.host ? -1 : 1));
  t.deepEqual(hosts, [
    { host: 'db1', host_token: null },
    { host: 'web1', host_token: web1.id },
  ]);

  // The list names each token and its last use, never the token nor its digest.
  t.true(await eventually(async () => (await listed(server, 'app')).find((each) => each.id === web1.id)?.last_used_at !== null, 10_000));
  const tokens = await listed(server, 'app');
  t.deepEqual(
    tokens.map((each) => Object.keys(each).sort()),
    [
      ['created_at', 'host', 'id', 'last_used_at'],
      ['created_at', 'host', 'id', 'last_used_at'],
    ],
  );
  t.deepEqual(
    tokens.map((each) => each.host),
    ['web1', 'web2'],
  );
  t.is(tokens.find((each) => each.id === web2.id)?.last_used_at, null);

  // Rotating the domain's token leaves the host tokens alone.
  const rotated = await rotateToken(server, 'app');
  t.is(await fetchStatus(server, name, web1.token), 200);

  t.is((await server.admin(`api/admin/domains/app/host-tokens/${web1.id}`, { method: 'DELETE' })).status, 204);
  const refused = await agent(web1.token, 'host', 'claims-to-be-db1');
  t.not(refused.code, 0);
  t.regex(
    refused.stderr,
    /refused the token for app\.example\.test \(HTTP 401\): this host token \(host web1\) was revoked on \d{4}-\d{2}-\d{2}; ask the certhub admin for a new one/,
  );
  const other = await agent(rotated, 'domain', 'db1');
  t.is(other.code, 0, other.stderr);
  t.is(await fetchStatus(server, name, web2.token), 200, "another host's token works on");
  t.deepEqual(
    (await listed(server, 'app')).map((each) => each.host),
    ['web2'],
  );

  // On disk and in the audit log: the digest and the id, never a token.
  const file = join(server.dataDir, 'host-tokens', `${name}.json`);
  t.is((await stat(file)).mode & 0o777, 0o600);
  const stored = await readFile(file, 'utf8');
  t.false(stored.includes(web2.token));
  t.true(stored.includes(web2.id));
  const auditLog = await readFile(join(server.dataDir, 'audit.jsonl'), 'utf8');
  t.false(auditLog.includes(web1.token) || auditLog.includes(web2.token));
  const audit = (await (await server.admin('api/admin/audit?domain=app')).json()) as { entries: { action: string; outcome: string; note?: string }[] };
  const actions = audit.entries.filter((entry) => entry.action.startsWith('host-token.')).map(({ action, outcome, note }) => ({ action, outcome, note }));
  t.deepEqual(actions, [
    { action: 'host-token.revoke', outcome: 'ok', note: `id ${web1.id}, host web1` },
    { action: 'host-token.issue', outcome: 'ok', note: 'host web2' },
    { action: 'host-token.issue', outcome: 'ok', note: 'host web1' },
  ]);

  // Removing the domain removes its host tokens: the file goes, and the token is told why it fails.
  t.is((await server.admin('api/admin/domains/app', { method: 'DELETE' })).status, 204);
  const gone = await fetch(`${server.url}api/cert/${name}`, { headers: { authorization: `Bearer ${web2.token}` } });
  t.is(gone.status, 401);
  t.regex(((await gone.json()) as { error: string }).error, /domain app\.example\.test was removed/);
  t.true(await eventually(async () => (await stat(file).catch(() => undefined)) === undefined, 5000), 'the host tokens file is removed');
});

test('a host token is for its domain only, its report cannot take over another token holder, and bad input is a 4xx with its error', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const [app, web] = await Promise.all([addIssuedDomain(server, 'app'), addIssuedDomain(server, 'web')]);
  const web1 = await issue(server, 'app', 'web1');
  const web2 = await issue(server, 'app', 'web2');
  t.is(await fetchStatus(server, app.name, web1.token), 200);
  t.is(await fetchStatus(server, web.name, web1.token), 401, 'not for another domain');

  const served = (await (await fetch(`${server.url}api/cert/${app.name}`, { headers: { authorization: `Bearer ${web1.token}` } })).json()) as {
    cert_pem: string;
    expires_at: string;
  };
  const { X509Certificate, createHash } = await import('node:crypto');
  const sha256 = createHash('sha256').update(new X509Certificate(served.cert_pem).raw).digest('hex');
  const report = (bearer: string, hostId: string) =>
    fetch(`${server.url}api/cert/${app.name}/report`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        host_id: hostId,
        host_name: 'anything',
        agent: 'fetch',
        agent_version: '1.0.0',
        serving: { sha256, not_after: served.expires_at },
        reload: null,
        next_check_at: null,
      }),
    });
  t.is((await report(web1.token, 'host-of-web1-0000')).status, 200);
  const takeover = await report(web2.token, 'host-of-web1-0000');
  t.is(takeover.status, 403);
  t.regex(((await takeover.json()) as { error: string }).error, /reports with another host token/);
  // The domain's token is every host's: a host moving to a host token keeps its record.
  t.is((await report(app.token, 'host-of-db1-00000')).status, 200);
  t.is((await report(web2.token, 'host-of-db1-00000')).status, 200);

  const refusals: [string, string, unknown, number, RegExp][] = [
    ['POST', 'api/admin/domains/app/host-tokens', { host: '' }, 400, /give the host a name/],
    ['POST', 'api/admin/domains/app/host-tokens', { host: 'web\n1' }, 400, /control characters/],
    ['POST', 'api/admin/domains/app/host-tokens', { host: ' web1' }, 400, /spaces/],
    ['POST', 'api/admin/domains/app/host-tokens', {}, 400, /host/],
    ['POST', 'api/admin/domains/app/host-tokens', { host: 'web1', extra: 1 }, 400, /extra/],
    ['POST', 'api/admin/domains/app/host-tokens', { host: 'web1' }, 409, /has a host token for web1 already/],
    ['POST', 'api/admin/domains/nowhere/host-tokens', { host: 'web1' }, 404, /no domain nowhere/],
    ['GET', 'api/admin/domains/nowhere/host-tokens', undefined, 404, /no domain nowhere/],
    ['DELETE', 'api/admin/domains/app/host-tokens/not-an-id', undefined, 400, /16 hex digits/],
    ['DELETE', 'api/admin/domains/app/host-tokens/0123456789abcdef', undefined, 404, /has no host token 0123456789abcdef/],
  ];
  for (const [method, path, body, status, error] of refusals) {
    const answer = await server.admin(path, { method, body });
    t.is(answer.status, status, `${method} ${path} ${JSON.stringify(body)}`);
    t.regex(((await answer.json()) as { error: string }).error, error);
  }
  const anonymous = await fetch(`${server.url}api/admin/domains/app/host-tokens`);
  t.is(anonymous.status, 401);
});
