import test from 'ava';
import { z } from 'zod';
import { safeEqual } from '../../src/crypto/constant-time.js';
import type { Router } from '../../src/http/router.js';
import { withServer } from '../helpers/with-server.js';

const adminToken = 'admin-token-0123456789';
const sessionId = 'session-abcdef';

/** The routes a site like the cert admin API declares: a login, a bearer group, a session group, and one that takes either. */
function mountAdmin(router: Router): void {
  const bearer = (token: string) => (safeEqual(token, adminToken) ? { name: 'admin', by: 'token' } : undefined);
  const session = { cookie: 'sid', check: (value: string) => (safeEqual(value, sessionId) ? { name: 'alice', by: 'cookie' } : undefined) };
  router
    // The schema stands in for a password check: only "right" gets this far.
    .post(
      '/login',
      (_request, reply) => {
        reply.setCookie('sid', sessionId, { maxAge: 3600 });
        reply.json(200, { ok: true });
      },
      { json: z.object({ password: z.literal('right') }), sameOrigin: true },
    )
    .post('/logout', (_request, reply) => {
      reply.clearCookie('sid');
      reply.json(200, { ok: true });
    })
    .get('/public', (request, reply) => reply.json(200, { cookies: Object.fromEntries(request.cookies) }));
  router.group({ auth: { bearer } }).get('/api/token-only', (request, reply) => reply.json(200, request.auth));
  router
    .group({ auth: { session } })
    .get('/api/session-only', (request, reply) => reply.json(200, request.auth))
    .post('/api/session-only', (request, reply) => reply.json(200, request.auth));
  router.group({ auth: { bearer, session } }).delete('/api/either', (request, reply) => reply.json(200, request.auth));
}

test(
  'a bearer group answers 401 with WWW-Authenticate: Bearer until the token is right',
  withServer,
  ({ router }) => mountAdmin(router),
  async (t, { url }) => {
    const missing = await fetch(`${url}/api/token-only`);
    t.is(missing.status, 401);
    t.is(missing.headers.get('www-authenticate'), 'Bearer');
    t.deepEqual(await missing.json(), { error: 'authentication required' });
    const wrong = await fetch(`${url}/api/token-only`, { headers: { Authorization: `Bearer ${adminToken}x` } });
    t.is(wrong.status, 401);
    t.is(wrong.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
    t.deepEqual(await wrong.json(), { error: 'invalid token' });
    const basic = await fetch(`${url}/api/token-only`, { headers: { Authorization: 'Basic YTpi' } });
    t.is(basic.status, 401);
    t.is(basic.headers.get('www-authenticate'), 'Bearer error="invalid_request"');
    const right = await fetch(`${url}/api/token-only`, { headers: { Authorization: `Bearer ${adminToken}` } });
    t.is(right.status, 200);
    t.deepEqual(await right.json(), { name: 'admin', by: 'token' });
    // A cookie is no bearer token.
    t.is((await fetch(`${url}/api/token-only`, { headers: { Cookie: `sid=${sessionId}` } })).status, 401);
  },
);

test(
  'authenticated routes never send CORS headers; unauthenticated ones on the same router do',
  withServer,
  ({ router }) => mountAdmin(router),
  async (t, { url }) => {
    const headers = { Authorization: `Bearer ${adminToken}`, Origin: 'http://elsewhere.example' };
    for (const response of [
      await fetch(`${url}/api/token-only`, { headers }),
      await fetch(`${url}/api/token-only`),
      await fetch(`${url}/api/either`, { method: 'DELETE', headers }),
    ]) {
      t.is(response.headers.get('access-control-allow-origin'), null, response.url);
    }
    t.is((await fetch(`${url}/public`)).headers.get('access-control-allow-origin'), '*');
    const preflight = await fetch(`${url}/api/token-only`, {
      method: 'OPTIONS',
      headers: { 'Access-Control-Request-Method': 'GET', Origin: 'http://elsewhere.example' },
    });
    t.is(preflight.status, 405, 'no preflight for a path that reads credentials');
    t.is(preflight.headers.get('access-control-allow-origin'), null);
  },
);

test(
  'login sets a session cookie with safe attributes; the session group takes it; logout clears it',
  withServer,
  ({ router }) => mountAdmin(router),
  async (t, { url }) => {
    const login = await fetch(`${url}/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"password":"right"}' });
    t.is(login.status, 200);
    t.deepEqual(login.headers.getSetCookie(), [`sid=${sessionId}; Max-Age=3600; Path=/; HttpOnly; Secure; SameSite=Strict`]);
    const cookie = `theme=dark; sid=${sessionId}`;
    const session = await fetch(`${url}/api/session-only`, { headers: { Cookie: cookie } });
    t.is(session.status, 200);
    t.deepEqual(await session.json(), { name: 'alice', by: 'cookie' });
    t.deepEqual(await (await fetch(`${url}/public`, { headers: { Cookie: cookie } })).json(), { cookies: { theme: 'dark', sid: sessionId } });
    const stale = await fetch(`${url}/api/session-only`, { headers: { Cookie: 'sid=expired' } });
    t.is(stale.status, 401);
    t.is(stale.headers.get('www-authenticate'), null, 'no bearer challenge on a cookie-only group');
    t.deepEqual(await stale.json(), { error: 'session expired or not valid; log in again' });
    t.is((await fetch(`${url}/api/session-only`)).status, 401);
    const logout = await fetch(`${url}/logout`, { method: 'POST' });
    t.deepEqual(logout.headers.getSetCookie(), ['sid=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Strict']);
  },
);

test(
  'a group that takes either credential: the Authorization header decides when present, else the cookie',
  withServer,
  ({ router }) => mountAdmin(router),
  async (t, { url }) => {
    const byToken = await fetch(`${url}/api/either`, { method: 'DELETE', headers: { Authorization: `Bearer ${adminToken}` } });
    t.deepEqual(await byToken.json(), { name: 'admin', by: 'token' });
    const byCookie = await fetch(`${url}/api/either`, { method: 'DELETE', headers: { Cookie: `sid=${sessionId}` } });
    t.deepEqual(await byCookie.json(), { name: 'alice', by: 'cookie' });
    const wrongToken = await fetch(`${url}/api/either`, { method: 'DELETE', headers: { Authorization: 'Bearer nope', Cookie: `sid=${sessionId}` } });
    t.is(wrongToken.status, 401, 'a wrong token is not rescued by a good cookie');
    const neither = await fetch(`${url}/api/either`, { method: 'DELETE' });
    t.is(neither.status, 401);
    t.is(neither.headers.get('www-authenticate'), 'Bearer');
  },
);

test(
  'state-changing requests with a session cookie must be same-origin (403); a bearer token need not be',
  withServer,
  ({ router }) => mountAdmin(router),
  async (t, { url }) => {
    const host = new URL(url).host;
    const cookie = { Cookie: `sid=${sessionId}` };
    const post = (headers: Record<string, string>) => fetch(`${url}/api/session-only`, { method: 'POST', headers: { ...cookie, ...headers } });
    const crossOrigin: Record<string, string>[] = [
      { Origin: 'http://evil.example' },
      { Origin: 'null' },
      { 'Sec-Fetch-Site': 'cross-site' },
      { 'Sec-Fetch-Site': 'same-site' },
      { Origin: `https://${host}.evil.example` },
    ];
    for (const headers of crossOrigin) {
      const refused = await post(headers);
      t.is(refused.status, 403, JSON.stringify(headers));
      t.deepEqual(await refused.json(), { error: 'cross-origin request refused' });
    }
    const sameOrigin: Record<string, string>[] = [{ Origin: `http://${host}` }, { 'Sec-Fetch-Site': 'same-origin', Origin: `http://${host}` }, {}];
    for (const headers of sameOrigin) {
      t.is((await post(headers)).status, 200, JSON.stringify(headers));
    }
    // Reading is not changing: a cross-site GET with the cookie is answered (SameSite=Strict keeps browsers from sending it anyway).
    t.is((await fetch(`${url}/api/session-only`, { headers: { ...cookie, 'Sec-Fetch-Site': 'cross-site' } })).status, 200);
    const tokenFromElsewhere = await fetch(`${url}/api/either`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${adminToken}`, Origin: 'http://evil.example' },
    });
    t.is(tokenFromElsewhere.status, 200);
    // A route may ask for the rule without authentication: a cross-site login is refused before its body is read.
    const crossLogin = await fetch(`${url}/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Sec-Fetch-Site': 'cross-site' },
      body: '{"password":"right"}',
    });
    t.is(crossLogin.status, 403);
    t.deepEqual(crossLogin.headers.getSetCookie(), []);
  },
);
