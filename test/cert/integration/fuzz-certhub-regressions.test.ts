// Answers the certhub fuzz (fuzz-certhub.test.ts) found outside its OpenAPI document, each kept as the
// request that showed it: they now answer a status the document lists, with a body of its schema.
import test, { type ExecutionContext } from 'ava';
import { certhubDataDir, startCerthub, testAdminKey } from '../../helpers/certhub.js';
import { expectDocumented, type FuzzTarget } from '../../helpers/fuzz-run.js';
import type { FuzzRequest } from '../helpers/fuzz-requests.js';

async function certhub(t: ExecutionContext): Promise<FuzzTarget & { origin: string }> {
  const server = await startCerthub(t, await certhubDataDir(t));
  return { url: server.url, pid: server.child.pid ?? 0, cors: false, origin: server.url.slice(0, -1) };
}

const admin = { authorization: `Bearer ${testAdminKey}` };

function request(method: string, target: string, headers: Record<string, string> = {}, body?: string): FuzzRequest {
  return { method, target, headers, body };
}

test('seed 2812 (warm-up of 2811), path 19: PUT /api/admin/prefs with an untyped body answers 415, and the document lists it', async (t) => {
  const server = await certhub(t);
  const found = request(
    'PUT',
    '/api/admin/prefs?=&%&%F2%90%8D%A6',
    { authorization: `Bearer ${testAdminKey}x`, 'x-fuzz': 'lT5[' },
    '[")?}6",false,"Jwf32",-4.5e+222]',
  );
  t.is(await expectDocumented(t, server, found), 415);
});

test('POST /api/admin/login with a body that is not JSON answers a documented 400', async (t) => {
  const server = await certhub(t);
  t.is(await expectDocumented(t, server, request('POST', '/api/admin/login', { 'content-type': 'application/json' }, '{"key":')), 400);
});

test('PATCH /api/admin/domains/{name} with a body too large answers a documented 413', async (t) => {
  const server = await certhub(t);
  t.is(
    await expectDocumented(
      t,
      server,
      request('PATCH', '/api/admin/domains/app', { ...admin, 'content-type': 'application/json' }, JSON.stringify({ target: 'a'.repeat(80_000) })),
    ),
    413,
  );
});

test('a path parameter that is not valid percent-encoding answers a documented 400 (admin and token routes)', async (t) => {
  const server = await certhub(t);
  t.is(await expectDocumented(t, server, request('GET', '/api/admin/domains/%zz', admin)), 400);
  t.is(await expectDocumented(t, server, request('DELETE', '/api/admin/domains/%E0%A4%A', admin)), 400);
  t.is(await expectDocumented(t, server, request('GET', '/api/cert/%zz', { authorization: 'Bearer chd_x' })), 400);
});

test('a session cookie or a login from another origin answers a documented 403', async (t) => {
  const server = await certhub(t);
  const login = await fetch(`${server.url}api/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.origin },
    body: JSON.stringify({ key: testAdminKey }),
  });
  t.is(login.status, 204);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  t.is(await expectDocumented(t, server, request('DELETE', '/api/admin/domains/app', { cookie, origin: 'http://evil.test' })), 403);
  t.is(
    await expectDocumented(
      t,
      server,
      request('POST', '/api/admin/login', { 'content-type': 'application/json', origin: 'http://evil.test' }, JSON.stringify({ key: testAdminKey })),
    ),
    403,
  );
  t.is(await expectDocumented(t, server, request('POST', '/api/admin/logout', { origin: 'http://evil.test' })), 403);
});

test('GET / (the admin panel) is in the document', async (t) => {
  const server = await certhub(t);
  t.is(await expectDocumented(t, server, request('GET', '/')), 200);
});

test('seed 2811, path 380: GET /api/admin/logs with a backlog that is not a whole number from 0 to 1000 answers a documented 400, not a stream', async (t) => {
  const server = await certhub(t);
  const found = request('GET', '/api/admin/logs?backlog=%F0%9E%80%BD%E1%8C%A4%F0%9F%98%B7%E2%B6%89%F0%90%83%93', {
    authorization: `Bearer ${testAdminKey}`,
    cookie: 'certhub_session=lV',
  });
  t.is(await expectDocumented(t, server, found), 400);
  for (const backlog of ['-5', '1.5', '1001', '', 'abc'])
    t.is(await expectDocumented(t, server, request('GET', `/api/admin/logs?backlog=${backlog}`, admin)), 400, backlog);
  t.is(await expectDocumented(t, server, request('GET', '/api/admin/logs?backlog=1000', admin)), 200);
});
