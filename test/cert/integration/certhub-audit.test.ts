// The audit log end to end: a real certhub records each admin action and each hand-out of material
// in audit.jsonl, pages it at /api/admin/audit, holds no secret in it, and `certhub audit verify`
// tells an intact file, an edited one, one missing a line, and one whose last line a crash tore.
import { appendFile, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { eventually } from '../../helpers/fixture-host.js';
import { certhubBin, certhubDataDir, startCerthub, testAdminKey } from '../../helpers/certhub.js';
import { runToEnd } from '../../helpers/process.js';

interface Entry {
  seq: number;
  action: string;
  by: string;
  client: string;
  domain: string | null;
  outcome: string;
  count?: number;
  note?: string;
}
interface Page {
  entries: Entry[];
  next_before: number | null;
}

const verify = (dataDir: string) => runToEnd(process.execPath, [certhubBin, 'audit', 'verify', '-d', dataDir]);

test('admin actions and hand-outs are recorded, paged, filtered and free of secrets; verify names an edit and a removal, and tells a torn line', async (t) => {
  const dataDir = await certhubDataDir(t);
  const server = await startCerthub(t, dataDir);
  const login = (key: string) =>
    fetch(`${server.url}api/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key }) });
  t.is((await login('cha_wrong-key')).status, 401);
  const loggedIn = await login(testAdminKey);
  t.is(loggedIn.status, 204);
  const cookie = (loggedIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const session = cookie.split('=')[1] ?? '';

  const added = (await (await server.admin('api/admin/domains', { method: 'POST', body: { name: 'app', target: '203.0.113.5' } })).json()) as { token: string };
  t.is((await server.admin('api/admin/domains', { method: 'POST', body: { name: 'app', target: '203.0.113.5' } })).status, 409);
  t.is((await server.admin('api/admin/domains/app', { method: 'PATCH', body: { target: '203.0.113.6' } })).status, 200);
  const fetchCert = (token: string) => fetch(`${server.url}api/cert/app`, { headers: { authorization: `Bearer ${token}` } });
  t.true(await eventually(async () => (await fetchCert(added.token)).status === 200), 'the demo certificate is issued');
  const material = (await (await fetchCert(added.token)).json()) as { key_pem: string };
  t.is((await fetchCert(added.token)).status, 200);
  const rotated = (await (await server.admin('api/admin/domains/app/rotate', { method: 'POST' })).json()) as { token: string };
  t.is((await server.admin('api/admin/domains/app/retry', { method: 'POST' })).status, 409);
  // Through the session, as the panel downloads it.
  t.is((await fetch(`${server.url}api/admin/domains/app/key.key`, { headers: { cookie } })).status, 200);
  t.is((await server.admin('api/admin/domains/app/cert.crt')).status, 200);
  t.is((await server.admin('api/admin/domains/app', { method: 'DELETE' })).status, 204);
  t.is((await fetch(`${server.url}api/admin/logout`, { method: 'POST', headers: { cookie } })).status, 204);

  const page = async (query = '') => {
    const answer = await server.admin(`api/admin/audit${query}`);
    t.is(answer.status, 200, await answer.clone().text());
    return (await answer.json()) as Page;
  };
  t.true(await eventually(async () => (await page('?action=fetch')).entries.length > 0), 'the fetches are sent within a second');
  const all = (await page('?limit=500')).entries.reverse();
  const sessionId = all.find((entry) => entry.action === 'login' && entry.outcome === 'ok')?.by ?? '';
  t.regex(sessionId, /^session:[0-9a-f]{8}$/);
  t.deepEqual(
    all.filter(({ action }) => action !== 'fetch').map(({ action, outcome, domain, by }) => [action, outcome, domain, by]),
    [
      ['login', 'ERR_UNAUTHORIZED', null, 'none'],
      ['login', 'ok', null, sessionId],
      ['add', 'ok', 'app.example.test', 'key'],
      ['add', 'ERR_CONFLICT', 'app', 'key'],
      ['edit', 'ok', 'app.example.test', 'key'],
      ['rotate', 'ok', 'app.example.test', 'key'],
      ['retry', 'ERR_CONFLICT', 'app', 'key'],
      ['download.key', 'ok', 'app.example.test', sessionId],
      ['download.cert', 'ok', 'app.example.test', 'key'],
      ['remove', 'ok', 'app.example.test', 'key'],
      ['logout', 'ok', null, sessionId],
    ],
    'in order, the merged fetches aside',
  );
  const fetches = all.filter((entry) => entry.action === 'fetch');
  t.true(fetches.every((entry) => /^token:[0-9a-f]{16}$/.test(entry.by) && entry.client === '127.0.0.1'));
  t.true(fetches.reduce((sum, entry) => sum + (entry.count ?? 1), 0) >= 2, 'each hand-out is counted');
  t.is(all.find((entry) => entry.action === 'edit')?.note, 'target 203.0.113.6');

  // Filters and pages.
  t.deepEqual(
    (await page('?action=rotate')).entries.map(({ action }) => action),
    ['rotate'],
  );
  t.true((await page('?domain=app')).entries.every((entry) => entry.domain === 'app' || entry.domain === 'app.example.test'));
  const first = await page('?limit=2');
  t.is(first.entries.length, 2);
  const second = await page(`?limit=2&before=${first.next_before}`);
  t.true((second.entries[0]?.seq ?? 0) < (first.entries[1]?.seq ?? 0));
  t.is((await server.admin('api/admin/audit?action=nothing')).status, 400);
  for (const query of ['limit=0', 'limit=501', 'before=', 'before=x', 'action=', 'domain='])
    t.is((await server.admin(`api/admin/audit?${query}`)).status, 400, query);
  t.is((await fetch(`${server.url}api/admin/audit`)).status, 401);

  const path = join(dataDir, 'audit.jsonl');
  t.is((await stat(path)).mode & 0o777, 0o600);
  const text = await readFile(path, 'utf8');
  for (const [what, secret] of [
    ['the admin key', testAdminKey],
    ['the wrong key tried', 'cha_wrong-key'],
    ['the first token', added.token],
    ['the rotated token', rotated.token],
    ['the session id', session],
    ['a private key', 'PRIVATE KEY'],
    ['the key handed out', material.key_pem.split('\n')[1] ?? 'none'],
  ] as const) {
    t.false(text.includes(secret), `${what} is not in the audit log`);
  }

  const intact = await verify(dataDir);
  t.is(intact.code, 0, intact.stderr);
  t.regex(intact.stdout, new RegExp(`^audit.jsonl: ${all.length} entries, chain intact\\nlast line's SHA-256: [0-9a-f]{64}\\n$`));

  server.child.kill('SIGTERM');
  await server.exited;
  const lines = text.trimEnd().split('\n');
  await writeFile(path, `${lines.map((line, index) => (index === 4 ? line.replace('203.0.113.6', '203.0.113.9') : line)).join('\n')}\n`);
  const edited = await verify(dataDir);
  t.is(edited.code, 1);
  t.regex(edited.stderr, /^certhub: audit\.jsonl line 6 has a prev that is not the SHA-256 of line 5/);
  await writeFile(path, `${lines.filter((_, index) => index !== 2).join('\n')}\n`);
  const removed = await verify(dataDir);
  t.is(removed.code, 1);
  t.regex(removed.stderr, /line 3 has a prev/);

  const tornLine = `{"seq":${lines.length + 1},"prev":"00`;
  await writeFile(path, `${lines.join('\n')}\n${tornLine}`);
  const torn = await verify(dataDir);
  t.is(torn.code, 0, torn.stderr);
  t.regex(torn.stdout, new RegExp(`${lines.length} entries, chain intact; after line ${lines.length}, ${tornLine.length} bytes are a torn line`));

  // The next run cuts the torn line and says so in the chain.
  const again = await startCerthub(t, dataDir);
  const cut = (await (await again.admin('api/admin/audit?action=audit.torn')).json()) as Page;
  t.like(cut.entries[0], { seq: lines.length + 1, by: 'certhub', note: `${tornLine.length} bytes of a torn line cut` });
  const after = await verify(dataDir);
  t.is(after.code, 0, after.stderr);
  t.regex(after.stdout, new RegExp(`^audit.jsonl: ${lines.length + 1} entries, chain intact\\n`));
});

test('certhub audit verify without an audit log says where it looked and exits 1', async (t) => {
  const dataDir = await certhubDataDir(t);
  const answer = await verify(dataDir);
  t.is(answer.code, 1);
  t.is(answer.stderr, `certhub: no audit log at ${join(dataDir, 'audit.jsonl')} (certhub writes it from its first run)\n`);
  await appendFile(join(dataDir, 'audit.jsonl'), '');
  t.regex((await verify(dataDir)).stdout, /^audit\.jsonl: 0 entries, chain intact/);
});
