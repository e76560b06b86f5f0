import test from 'ava';
import { requestFraming } from '../../../src/http/request-framing.js';
import { clientResponseHeaders } from '../../../actors/proxy/proxy-front/logic.js';

const refused = (headers: [string, string][]) => {
  const framing = requestFraming(headers);
  return framing.ok ? undefined : framing.problem;
};

test('RFC 9112 section 6.3: ambiguous framing is refused, naming why', (t) => {
  t.regex(
    refused([
      ['content-length', '3'],
      ['transfer-encoding', 'chunked'],
    ]) ?? '',
    /both Content-Length and Transfer-Encoding/,
  );
  t.regex(
    refused([
      ['transfer-encoding', 'chunked'],
      ['content-length', '3'],
    ]) ?? '',
    /both/,
  );
  t.regex(
    refused([
      ['content-length', '3'],
      ['content-length', '3'],
    ]) ?? '',
    /more than one Content-Length/,
  );
  t.regex(
    refused([
      ['content-length', '3'],
      ['content-length', '5'],
    ]) ?? '',
    /more than one Content-Length/,
  );
  for (const coding of ['xchunked', 'CHUNKED', 'chunked, identity', 'identity, chunked', 'gzip'])
    t.regex(refused([['transfer-encoding', coding]]) ?? '', /other than chunked/, coding);
  t.regex(
    refused([
      ['transfer-encoding', 'chunked'],
      ['transfer-encoding', 'x'],
    ]) ?? '',
    /other than chunked/,
  );
  for (const length of ['+3', '-3', '1 0', '0x3', '3, 3', '99999999999999999999'])
    t.regex(refused([['content-length', length]]) ?? '', /not a decimal number/, length);
  t.regex(
    refused([
      ['host', 'a.test'],
      ['host', 'b.test'],
    ]) ?? '',
    /more than one Host/,
  );
  for (const value of ['a\x7fb', 'a\x00b', 'a\rb', 'a\nb', 'a\x1bb'])
    t.regex(refused([['x-a', value]]) ?? '', /x-a header holds a control character/, JSON.stringify(value));
});

test('a well-framed request has the length the proxy forwards', (t) => {
  t.deepEqual(requestFraming([['host', 'a.test']]), { ok: true, body: { kind: 'none' } });
  t.deepEqual(requestFraming([['content-length', ' 12 ']]), { ok: true, body: { kind: 'length', length: 12 } });
  t.deepEqual(requestFraming([['content-length', '0']]), { ok: true, body: { kind: 'length', length: 0 } });
  t.deepEqual(requestFraming([['transfer-encoding', 'chunked']]), { ok: true, body: { kind: 'chunked' } });
  t.deepEqual(requestFraming([['transfer-encoding', ' chunked\t']]), { ok: true, body: { kind: 'chunked' } }, 'the blanks around a coding are not part of it');
  t.deepEqual(requestFraming([['x-a', 'tab\tand é']]), { ok: true, body: { kind: 'none' } });
});

test("response headers: hop-by-hop ones, those the Connection header names and the framing stay with the proxy; a route's HSTS replaces the backend's", (t) => {
  const backend = [
    'connection',
    'close, x-hop',
    'x-hop',
    'secret',
    'keep-alive',
    'timeout=5',
    'transfer-encoding',
    'chunked',
    'content-length',
    '5',
    'set-cookie',
    'a=1',
    'set-cookie',
    'b=2',
    'strict-transport-security',
    'max-age=1',
  ];
  t.deepEqual(clientResponseHeaders(backend), [
    ['set-cookie', 'a=1'],
    ['set-cookie', 'b=2'],
    ['strict-transport-security', 'max-age=1'],
  ]);
  t.deepEqual(clientResponseHeaders(backend, 'max-age=63072000'), [
    ['set-cookie', 'a=1'],
    ['set-cookie', 'b=2'],
    ['strict-transport-security', 'max-age=63072000'],
  ]);
});
