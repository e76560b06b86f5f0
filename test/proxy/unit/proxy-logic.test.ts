import test from 'ava';
import { backendRequestHeaders, clientAddress, errorPage, hostName, httpsRedirect, pathAndQuery } from '../../../actors/proxy/proxy-front/logic.js';

test("the backend gets the proxy's X-Forwarded-* and none of the client's, nor hop-by-hop headers", (t) => {
  const headers = backendRequestHeaders(
    [
      ['host', 'app.example.test'],
      ['x-forwarded-for', '203.0.113.9'],
      ['forwarded', 'for=203.0.113.9'],
      ['connection', 'keep-alive, x-secret-hop'],
      ['x-secret-hop', '1'],
      ['expect', '100-continue'],
      ['content-length', '7'],
      ['accept', 'text/html'],
    ],
    { address: '192.0.2.7', trusted: false, host: 'app.example.test' },
  );
  t.deepEqual(headers, [
    'host',
    'app.example.test',
    'accept',
    'text/html',
    'x-forwarded-for',
    '192.0.2.7',
    'x-forwarded-proto',
    'https',
    'x-forwarded-host',
    'app.example.test',
  ]);
});

const spoofing: [string, string][] = [
  ['host', 'app.example.test'],
  ['x-forwarded-for', '203.0.113.9'],
  ['x-real-ip', '203.0.113.9'],
  ['true-client-ip', '203.0.113.9'],
  ['x_forwarded_for', '203.0.113.9'],
  ['x-forwarded_host', 'evil.example'],
  ['accept', 'text/html'],
];

test("from an untrusted peer, names with an underscore and every claim of the client's address are dropped", (t) => {
  const headers = backendRequestHeaders(spoofing, { address: '192.0.2.7', trusted: false, host: 'app.example.test' });
  t.deepEqual(headers, [
    'host',
    'app.example.test',
    'accept',
    'text/html',
    'x-forwarded-for',
    '192.0.2.7',
    'x-forwarded-proto',
    'https',
    'x-forwarded-host',
    'app.example.test',
  ]);
});

test('from a trusted proxy, its X-Forwarded-For is extended and X-Real-IP kept; underscores are dropped all the same', (t) => {
  const headers = backendRequestHeaders(spoofing, { address: '192.0.2.7', trusted: true, host: 'app.example.test' });
  t.deepEqual(headers, [
    'host',
    'app.example.test',
    'x-real-ip',
    '203.0.113.9',
    'true-client-ip',
    '203.0.113.9',
    'accept',
    'text/html',
    'x-forwarded-for',
    '203.0.113.9, 192.0.2.7',
    'x-forwarded-proto',
    'https',
    'x-forwarded-host',
    'app.example.test',
  ]);
});

test('names, addresses and the HTTPS redirect', (t) => {
  t.is(clientAddress('::ffff:127.0.0.1'), '127.0.0.1');
  t.is(clientAddress('::1'), '::1');
  t.is(hostName('App.Example.Test:8443'), 'app.example.test');
  t.is(hostName('[::1]:8443'), '[::1]');
  const routed = new Set(['app.example.test']);
  t.is(httpsRedirect('app.example.test:80', '/a?b', 443, routed), 'https://app.example.test/a?b');
  t.is(httpsRedirect('app.example.test', '/', 8443, routed), 'https://app.example.test:8443/');
  t.is(httpsRedirect('evil.example', '/', 443, routed), undefined);
  t.notRegex(errorPage(502, 'Bad <Gateway>', 'x'), /<Gateway>/);
  t.is(pathAndQuery('/a', undefined), '/a');
  t.is(pathAndQuery('/a', ''), '/a?');
  t.is(pathAndQuery('/a', 'b=1'), '/a?b=1');
});

test('Connection lists hop-by-hop names in any case, with blanks, over several fields; only Connection does', (t) => {
  const headers = backendRequestHeaders(
    [
      ['connection', ' X-Hop-A ,x-hop-b'],
      ['x-hop-a', '1'],
      ['connection', 'X-HOP-C'],
      ['x-hop-b', '2'],
      ['x-hop-c', '3'],
      ['access-control-request-headers', 'x-token'],
      ['x-token', 'kept'],
    ],
    { address: '192.0.2.7', trusted: false, host: 'app.example.test' },
  );
  t.deepEqual(headers.slice(0, -6), ['access-control-request-headers', 'x-token', 'x-token', 'kept']);
});

test('a trusted proxy sending X-Forwarded-For twice: both lists in order, then the address this proxy saw', (t) => {
  const headers = backendRequestHeaders(
    [
      ['x-forwarded-for', '203.0.113.1, 203.0.113.2'],
      ['forwarded', 'for=203.0.113.1'],
      ['x-forwarded-for', '203.0.113.3'],
    ],
    { address: '192.0.2.7', trusted: true, host: 'app.example.test' },
  );
  t.deepEqual(headers, [
    'forwarded',
    'for=203.0.113.1',
    'x-forwarded-for',
    '203.0.113.1, 203.0.113.2, 203.0.113.3, 192.0.2.7',
    'x-forwarded-proto',
    'https',
    'x-forwarded-host',
    'app.example.test',
  ]);
});

test("the request id replaces the client's X-Request-Id; a WebSocket handshake leaves out the headers the backend's client sets itself", (t) => {
  const client = { address: '192.0.2.7', trusted: false, host: 'app.example.test' };
  const incoming: [string, string][] = [
    ['x-request-id', 'from-client'],
    ['sec-websocket-key', 'dGhlIHNhbXBsZSBub25jZQ=='],
    ['sec-websocket-version', '13'],
    ['sec-websocket-protocol', 'chat'],
    ['sec-websocket-extensions', 'permessage-deflate'],
    ['origin', 'https://app.example.test'],
  ];
  const forwarded = ['x-forwarded-for', '192.0.2.7', 'x-forwarded-proto', 'https', 'x-forwarded-host', 'app.example.test'];
  t.deepEqual(backendRequestHeaders(incoming, client, { webSocket: true, requestId: 'r-1' }), [
    'origin',
    'https://app.example.test',
    'x-request-id',
    'r-1',
    ...forwarded,
  ]);
  t.deepEqual(backendRequestHeaders(incoming, client, { webSocket: false }), [...incoming.flat(), ...forwarded], "no request id: the client's passes");
  t.deepEqual(backendRequestHeaders(incoming, client), [...incoming.flat(), ...forwarded]);
});
