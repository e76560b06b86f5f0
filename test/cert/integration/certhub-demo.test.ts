// certhub run --demo end to end over real sockets: the admin API, the per-domain token, the replica.
import { X509Certificate } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { eventually } from '../../helpers/fixture-host.js';
import { certhubDataDir, startCerthub, testAdminKey } from '../../helpers/certhub.js';

interface Domain {
  name: string;
  label: string;
  status: string;
  token: string;
  record_type: string;
  target: string;
  expires_at: string | null;
  last_fetch: { at: string; from: string } | null;
}

test('add -> issued demo certificate -> fetched with its token; the admin key is neither logged nor printed on a pipe', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const printed = await server.waitFor(/^admin key: (.*)$/m);
  t.is(printed[1], `in ${join(server.dataDir, 'config.json')} (starts ${testAdminKey.slice(0, 6)}…)`, 'where the key is and how it starts, not the key');
  t.false(server.stdout().includes(testAdminKey), 'the admin key is not on a stdout that is no terminal');
  const added = await server.admin('api/admin/domains', { method: 'POST', body: { name: 'app', target: '203.0.113.5' } });
  t.is(added.status, 201);
  const domain = (await added.json()) as Domain;
  t.like(domain, { name: 'app.example.test', label: 'app', record_type: 'A', target: '203.0.113.5' });
  t.regex(domain.token, /^chd_[A-Za-z0-9_-]{43}$/);

  const fetchCert = (name: string, token: string) => fetch(`${server.url}api/cert/${name}`, { headers: { authorization: `Bearer ${token}` } });
  t.true(await eventually(async () => (await fetchCert('app', domain.token)).status === 200), 'the demo certificate is issued');
  const material = (await (await fetchCert('app.example.test', domain.token)).json()) as {
    cert_pem: string;
    chain_pem: string;
    key_pem: string;
    expires_at: string;
  };
  const certificate = new X509Certificate(material.cert_pem);
  t.regex(certificate.issuer, /demo/);
  t.regex(certificate.subjectAltName ?? '', /DNS:app\.example\.test/);
  t.true(certificate.checkPrivateKey((await import('node:crypto')).createPrivateKey(material.key_pem)), 'the key matches the certificate');
  t.is(new Date(material.expires_at).getTime(), new Date(certificate.validTo).getTime());

  t.true(
    await eventually(async () => ((await (await server.admin('api/admin/domains/app')).json()) as Domain).last_fetch !== null, 15_000),
    'the fetch is recorded',
  );
  const seen = (await (await server.admin('api/admin/domains/app')).json()) as Domain;
  t.like(seen, { status: 'issued' });
  t.is(seen.last_fetch?.from, '127.0.0.1');
  t.false(server.stderr().includes(testAdminKey), 'the admin key is not in the log');
});

test('a wrong token and an unknown domain get the same 401; rotate kills the old token at once', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const domain = (await (await server.admin('api/admin/domains', { method: 'POST', body: { name: 'web', target: 'host.example.net' } })).json()) as Domain;
  t.is(domain.record_type, 'CNAME');
  const fetchCert = (name: string, token: string) => fetch(`${server.url}api/cert/${name}`, { headers: { authorization: `Bearer ${token}` } });
  t.true(await eventually(async () => (await fetchCert('web', domain.token)).status === 200));
  const wrong = await fetchCert('web', `${domain.token.slice(0, -1)}x`);
  const unknown = await fetchCert('nothere', domain.token);
  t.is(wrong.status, 401);
  t.is(unknown.status, 401);
  t.deepEqual(await wrong.json(), await unknown.json());

  const rotated = (await (await server.admin('api/admin/domains/web/rotate', { method: 'POST' })).json()) as Domain;
  t.not(rotated.token, domain.token);
  t.is((await fetchCert('web', domain.token)).status, 401, 'the old token is refused at once');
  t.is((await fetchCert('web', rotated.token)).status, 200);
});

test('retry asks a domain in error to try again now: one that is not in error gets 409 naming its state', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  t.is((await server.admin('api/admin/domains', { method: 'POST', body: { name: 'app', target: '203.0.113.5' } })).status, 201);
  t.true(await eventually(async () => ((await (await server.admin('api/admin/domains/app')).json()) as Domain).status === 'issued'));
  const refused = await server.admin('api/admin/domains/app/retry', { method: 'POST' });
  t.is(refused.status, 409);
  t.deepEqual(await refused.json(), { error: 'app.example.test is issued: only a domain in error can be retried' });
  t.is((await server.admin('api/admin/domains/nothere/retry', { method: 'POST' })).status, 404);
  t.is((await fetch(`${server.url}api/admin/domains/app/retry`, { method: 'POST' })).status, 401, 'the admin key or a session is required');
});

test('bad input gets 4xx with {"error"} and stores nothing', async (t) => {
  const dataDir = await certhubDataDir(t);
  const server = await startCerthub(t, dataDir);
  const post = (body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    fetch(`${server.url}api/admin/domains`, {
      method: 'POST',
      headers: { authorization: `Bearer ${testAdminKey}`, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const cases: [unknown, number, RegExp, Record<string, string>?][] = [
    [{ name: 'bad_label!', target: '203.0.113.5' }, 400, /name/],
    [{ name: 'app.other.test', target: '203.0.113.5' }, 400, /not under the base domain/],
    [{ name: 'app', target: 'not a host' }, 400, /target/],
    ['{"name": "app",', 400, /JSON/],
    [{ name: 'app', target: '203.0.113.5' }, 415, /must be application\/json/, { 'content-type': 'text/plain' }],
    [{ name: 'app', target: 'x'.repeat(100_000) }, 413, /larger/],
  ];
  for (const [body, status, message, headers] of cases) {
    const response = await post(body, headers);
    t.is(response.status, status, JSON.stringify(body).slice(0, 60));
    t.regex(((await response.json()) as { error: string }).error, message);
  }
  t.is((await post({ name: 'app', target: '203.0.113.5' })).status, 201);
  const duplicate = await post({ name: 'app.example.test', target: '203.0.113.6' });
  t.is(duplicate.status, 409);
  t.deepEqual(
    (await readdir(join(dataDir, 'domains'))).filter((file) => !file.startsWith('.')),
    ['app.example.test.json'],
  );
  t.is((await stat(join(dataDir, 'domains', 'app.example.test.json'))).mode & 0o777, 0o600);
  t.is((await fetch(`${server.url}api/admin/domains`)).status, 401, 'the admin API needs a credential');
});

test("a blank name, a blank target and a URL as target are refused in words (the panel's own)", async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const refusal = async (method: string, path: string, body: unknown) => {
    const response = await server.admin(path, { method, body });
    return { status: response.status, error: ((await response.json()) as { error: string }).error };
  };
  t.deepEqual(await refusal('POST', 'api/admin/domains', { name: '', target: '203.0.113.5' }), {
    status: 400,
    error: 'give a name: a label such as "app" or a full name such as "app.example.test"',
  });
  t.deepEqual(await refusal('POST', 'api/admin/domains', { name: 'web', target: ' ' }), {
    status: 400,
    error: 'give a target: an IPv4 address (A record), an IPv6 address (AAAA) or a host name (CNAME)',
  });
  t.deepEqual(await refusal('POST', 'api/admin/domains', { name: 'web', target: 'http://example.net' }), {
    status: 400,
    error: 'target "http://example.net": a target is an IP address or a host name, not a URL (give example.net)',
  });
  t.is((await server.admin('api/admin/domains', { method: 'POST', body: { name: 'web', target: '203.0.113.5' } })).status, 201);
  t.deepEqual(await refusal('PATCH', 'api/admin/domains/web', { target: 'https://example.net/' }), {
    status: 400,
    error: 'target "https://example.net/": a target is an IP address or a host name, not a URL (give example.net)',
  });
  t.deepEqual(await refusal('PATCH', 'api/admin/domains/web', { target: '' }), {
    status: 400,
    error: 'give a target: an IPv4 address (A record), an IPv6 address (AAAA) or a host name (CNAME)',
  });
});

test('a restart keeps domains, tokens and certificates; edit and remove', async (t) => {
  const dataDir = await certhubDataDir(t);
  const first = await startCerthub(t, dataDir);
  const domain = (await (await first.admin('api/admin/domains', { method: 'POST', body: { name: 'keep', target: '2001:db8::1' } })).json()) as Domain;
  t.is(domain.record_type, 'AAAA');
  const fetchCert = (url: string, token: string) => fetch(`${url}api/cert/keep`, { headers: { authorization: `Bearer ${token}` } });
  t.true(await eventually(async () => (await fetchCert(first.url, domain.token)).status === 200));
  const before = await (await fetchCert(first.url, domain.token)).text();
  first.child.kill('SIGTERM');
  t.is(await first.exited, 0);

  const second = await startCerthub(t, dataDir);
  t.is(await (await fetchCert(second.url, domain.token)).text(), before, 'the same material for the same token');
  const edited = await second.admin('api/admin/domains/keep', { method: 'PATCH', body: { target: 'edge.example.net' } });
  t.like(await edited.json(), { record_type: 'CNAME', target: 'edge.example.net' });
  t.is((await second.admin('api/admin/domains/keep.example.test', { method: 'DELETE' })).status, 204);
  t.is((await fetchCert(second.url, domain.token)).status, 401);
  t.is((await second.admin('api/admin/domains/keep')).status, 404);
});

test('login sets an HttpOnly SameSite=Strict session cookie that opens the admin API; logout ends it', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const wrong = await fetch(`${server.url}api/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key: 'wrong-key' }),
  });
  t.is(wrong.status, 401);
  const login = await fetch(`${server.url}api/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key: testAdminKey }),
  });
  t.is(login.status, 204);
  const cookie = login.headers.get('set-cookie') ?? '';
  t.regex(cookie, /certhub_session=[^;]+/);
  t.regex(cookie, /HttpOnly/i);
  t.regex(cookie, /SameSite=Strict/i);
  const session = cookie.split(';')[0] ?? '';
  t.is((await fetch(`${server.url}api/admin/domains`, { headers: { cookie: session } })).status, 200);
  const sessionState = async (headers: Record<string, string>) => (await fetch(`${server.url}api/admin/session`, { headers })).json();
  t.deepEqual(await sessionState({ cookie: session }), { active: true, demo: true });
  t.deepEqual(await sessionState({}), { active: false, demo: true }, 'no cookie: an answer, not a 401');
  const crossSite = await fetch(`${server.url}api/admin/domains`, {
    method: 'POST',
    headers: { cookie: session, origin: 'https://evil.example', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'x', target: '203.0.113.9' }),
  });
  t.is(crossSite.status, 403, 'a cookie-authenticated change from another origin is refused');
  t.is((await fetch(`${server.url}api/admin/logout`, { method: 'POST', headers: { cookie: session } })).status, 204);
  t.is((await fetch(`${server.url}api/admin/domains`, { headers: { cookie: session } })).status, 401);
  t.deepEqual(await sessionState({ cookie: session }), { active: false, demo: true });
});

test('logout closes the event and log streams its session opened; a stream opened with the admin key stays open', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  const login = await fetch(`${server.url}api/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key: testAdminKey }),
  });
  const session = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const open = async (path: string, headers: Record<string, string>) => {
    const response = await fetch(`${server.url}${path}`, { headers });
    t.is(response.status, 200, path);
    const reader: ReadableStreamDefaultReader<Uint8Array> = response.body!.getReader();
    t.false((await reader.read()).done, `${path} sends its first event`);
    return reader;
  };
  const sessionEvents = await open('api/admin/events', { cookie: session });
  const sessionLogs = await open('api/admin/logs?backlog=5', { cookie: session });
  const keyEvents = await open('api/admin/events', { authorization: `Bearer ${testAdminKey}` });

  t.is((await fetch(`${server.url}api/admin/logout`, { method: 'POST', headers: { cookie: session } })).status, 204);
  // Reads until each session stream ends: the server closes it, so this returns however long it takes.
  const readToEnd = async (reader: ReadableStreamDefaultReader<Uint8Array>) => {
    while (!(await reader.read()).done);
  };
  await readToEnd(sessionEvents);
  await readToEnd(sessionLogs);
  t.pass('both streams of the session ended');

  t.is((await server.admin('api/admin/domains', { method: 'POST', body: { name: 'after', target: '203.0.113.7' } })).status, 201);
  let received = '';
  const decoder = new TextDecoder();
  while (!received.includes('after.example.test')) {
    const { done, value } = await keyEvents.read();
    t.false(done, 'the stream opened with the admin key is still open');
    if (done) break;
    received += decoder.decode(value, { stream: true });
  }
  await keyEvents.cancel();
});

test("the event stream carries each domain's summary (what the list shows) and no token", async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  t.is((await server.admin('api/admin/domains', { method: 'POST', body: { name: 'before', target: '203.0.113.6' } })).status, 201);
  const response = await fetch(`${server.url}api/admin/events`, { headers: { authorization: `Bearer ${testAdminKey}` } });
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body!.getReader();
  const decoder = new TextDecoder();
  let received = '';
  /** The data of the next event of this type, read as far as it takes. */
  const next = async (type: string): Promise<Record<string, unknown>> => {
    for (;;) {
      const match = new RegExp(`event: ${type}\ndata: (.*)\n\n`).exec(received);
      if (match !== null) {
        received = received.slice(match.index + match[0].length);
        return JSON.parse(match[1] ?? '') as Record<string, unknown>;
      }
      const { done, value } = await reader.read();
      if (done) throw new Error(`the stream ended before a ${type} event`);
      received += decoder.decode(value, { stream: true });
    }
  };
  const summaryKeys = ['deployment', 'error', 'expires_at', 'issued_by', 'label', 'name', 'status'];
  const { domains } = (await next('snapshot')) as { domains: Array<Record<string, unknown>> };
  t.is(domains.length, 1);
  t.deepEqual(Object.keys(domains[0] ?? {}).sort(), summaryKeys);
  t.like(domains[0], { name: 'before.example.test', label: 'before', error: null });
  t.is((await server.admin('api/admin/domains', { method: 'POST', body: { name: 'after', target: '203.0.113.7' } })).status, 201);
  // `before` may still be on its way to issued: its own events can come first.
  let added = await next('domain');
  while (added.name !== 'after.example.test') {
    t.deepEqual(Object.keys(added).sort(), summaryKeys);
    added = await next('domain');
  }
  t.deepEqual(Object.keys(added).sort(), summaryKeys);
  const full = (await (await server.admin('api/admin/domains/after')).json()) as { token: string };
  t.regex(full.token, /^chd_/, 'the full domain, token included, is one GET away');
  await reader.cancel();
});

test('version, help and an OpenAPI 3.0 spec that describes every admin endpoint', async (t) => {
  const server = await startCerthub(t, await certhubDataDir(t));
  t.like(await (await fetch(`${server.url}api/version`)).json(), { product: 'certhub', api_version: 1 });
  t.regex(await (await fetch(`${server.url}api/help`)).text(), /curl -H "Authorization: Bearer \$TOKEN" http:\/\/127\.0\.0\.1:\d+\/api\/cert\/app/);
  const spec = (await (await fetch(`${server.url}api/spec`)).json()) as { openapi: string; paths: Record<string, unknown> };
  t.regex(spec.openapi, /^3\.0\./);
  const { Validator } = await import('@seriousme/openapi-schema-validator');
  const result = await new Validator().validate(spec);
  t.true(result.valid, JSON.stringify(result.errors));
  for (const path of [
    '/api/cert/{domain}',
    '/api/admin/domains',
    '/api/admin/domains/{name}',
    '/api/admin/domains/{name}/rotate',
    '/api/admin/domains/{name}/retry',
    '/api/admin/prefs',
    '/api/admin/logs',
    '/api/admin/events',
    '/api/admin/login',
  ])
    t.truthy(spec.paths[path], path);
});
