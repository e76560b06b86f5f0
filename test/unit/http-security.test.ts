import test from 'ava';
import { safeEqual } from '../../src/crypto/constant-time.js';
import { parseCookies, serializeCookie } from '../../src/http/cookies.js';
import { isSameOrigin } from '../../src/http/same-origin.js';

test('safeEqual compares texts of any lengths', (t) => {
  t.true(safeEqual('token', 'token'));
  t.true(safeEqual('', ''));
  t.false(safeEqual('token', 'tokem'));
  t.false(safeEqual('token', 'token '));
  t.false(safeEqual('', 'x'));
  t.true(safeEqual('ünïcode ✓', 'ünïcode ✓'));
});

test('cookies parse by name (first one wins) and serialize with safe defaults', (t) => {
  t.deepEqual(
    [...parseCookies('a=1; b=two%20words; a=3')],
    [
      ['a', '1'],
      ['b', 'two words'],
    ],
  );
  t.deepEqual([...parseCookies(undefined)], []);
  t.deepEqual([...parseCookies('garbage')], []);
  t.is(serializeCookie('sid', 'v'), 'sid=v; Path=/; HttpOnly; Secure; SameSite=Strict');
  t.is(
    serializeCookie('sid', 'v', { maxAge: 60, path: '/admin', sameSite: 'lax', secure: false, httpOnly: false }),
    'sid=v; Max-Age=60; Path=/admin; SameSite=Lax',
  );
  t.throws(() => serializeCookie('bad name', 'v'), { instanceOf: TypeError });
  t.throws(() => serializeCookie('sid', 'v', { path: '/a;b' }), { instanceOf: TypeError });
});

test('same origin: safe methods always, then Sec-Fetch-Site, then Origin against Host, then no browser', (t) => {
  const request = (method: string, headers: Record<string, string>) => ({ method, headers: new Map(Object.entries(headers)) });
  t.true(isSameOrigin(request('GET', { 'sec-fetch-site': 'cross-site' })));
  t.true(isSameOrigin(request('POST', { 'sec-fetch-site': 'same-origin', host: 'a:1' })));
  t.true(isSameOrigin(request('POST', { 'sec-fetch-site': 'none' })));
  t.false(isSameOrigin(request('POST', { 'sec-fetch-site': 'same-site', origin: 'http://a:1', host: 'a:1' })), 'Sec-Fetch-Site decides when sent');
  t.true(isSameOrigin(request('PUT', { origin: 'https://panel.example', host: 'panel.example' })));
  t.false(isSameOrigin(request('PUT', { origin: 'https://panel.example:8443', host: 'panel.example' })));
  t.false(isSameOrigin(request('DELETE', { origin: 'null', host: 'panel.example' })));
  t.false(isSameOrigin(request('DELETE', { origin: 'https://panel.example' })), 'an Origin and no Host');
  t.true(isSameOrigin(request('PATCH', {})), 'curl sends neither header and no ambient cookie');
});
