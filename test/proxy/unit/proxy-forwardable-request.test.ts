// What the proxy forwards of a request head as uWS hands it over (decoded as UTF-8): the grammar of
// each part, checked on code units, and obs-text put back into the bytes the client sent.
import test from 'ava';
import { forwardableRequest } from '../../../actors/proxy/proxy-front/forwardable-request.js';

const problem = (method: string, target: string, headers: [string, string][]) => {
  const verdict = forwardableRequest(method, target, headers);
  return verdict.ok ? undefined : verdict.problem;
};

/** Each ASCII character of `text` moved to U+01xx: its low byte is the character, as a latin1 writer would keep it. */
const aliased = (text: string) => [...text].map((character) => String.fromCharCode(0x100 + character.charCodeAt(0))).join('');

test('code units whose low byte is CR, LF or NUL are refused in every part of the head', (t) => {
  const smuggle = aliased('\r\n\r\nPOST /x HTTP/1.1\r\nContent-Length: 120\r\n\r\n');
  t.regex(problem('GET', '/', [['x-a', `a${smuggle}`]]) ?? '', /x-a header holds a control character or a character above U\+00FF/);
  t.regex(problem('GET', `/a${smuggle}`, []) ?? '', /target holds a character that is not visible ASCII/);
  t.regex(problem('GET', `/a?q=${smuggle}`, []) ?? '', /not visible ASCII/);
  t.regex(problem(`GET${aliased(' /x')}`, '/', []) ?? '', /method is not a token/);
  t.regex(problem('GET', '/', [[`x-a${aliased('\r\n')}`, 'b']]) ?? '', /header name is not a token/);
});

test('a refusal quotes at most the first 40 characters of the header name', (t) => {
  const name = `x-${'a'.repeat(60)}`;
  t.is(problem('GET', '/', [[name, 'a\x00b']]), `the ${name.slice(0, 40)} header holds a control character or a character above U+00FF`);
});

test('every code point from U+0100 to U+01FF is refused in a method, a target, a name and a value', (t) => {
  for (let code = 0x100; code <= 0x1ff; code++) {
    const character = String.fromCharCode(code);
    t.not(problem(`G${character}`, '/', []), undefined);
    t.not(problem('GET', `/${character}`, []), undefined);
    t.not(problem('GET', `/?${character}`, []), undefined);
    t.not(problem('GET', '/', [[`x${character}`, 'v']]), undefined);
    t.not(problem('GET', '/', [['x-a', `v${character}`]]), undefined);
  }
});

test('non-ASCII in the method or target, the replacement character, controls and DEL in a value are refused', (t) => {
  t.not(problem('GÉT', '/', []), undefined);
  t.not(problem('GET', '/é', []), undefined);
  t.not(problem('GET', '/a b', []), undefined);
  t.not(problem('GET', '/', [['x-a', 'a\uFFFDb']]), undefined);
  for (const value of ['a\rb', 'a\nb', 'a\x00b', 'a\x7fb', 'a\x1bb', 'a\u0100b', 'a\u2028b'])
    t.not(problem('GET', '/', [['x-a', value]]), undefined, JSON.stringify(value));
});

test('obs-text (U+0080-U+00FF) passes, rewritten to the bytes the client sent; visible ASCII, spaces and tabs are left alone', (t) => {
  const headers: [string, string][] = [
    ['host', 'app.example.test'],
    ['x-name', 'Zoë\tand é'],
    ['x-plain', 'a b\tc ~!'],
  ];
  t.deepEqual(forwardableRequest('PATCH', '/a/b?c=%C3%A9&d=~', headers), { ok: true, body: { kind: 'none' } });
  t.is(headers[1]![1], Buffer.from('Zoë\tand é', 'utf8').toString('latin1'));
  t.deepEqual(Buffer.from(headers[1]![1], 'latin1'), Buffer.from('Zoë\tand é', 'utf8'));
  t.is(headers[2]![1], 'a b\tc ~!');
});

test('the framing rules still apply once the grammar passes', (t) => {
  t.regex(
    problem('POST', '/', [
      ['content-length', '3'],
      ['content-length', '3'],
    ]) ?? '',
    /more than one Content-Length/,
  );
  t.deepEqual(forwardableRequest('POST', '/', [['content-length', '3']]), { ok: true, body: { kind: 'length', length: 3 } });
});
