// The character classes of an HTTP/1.1 head (RFC 9110 section 5.1, 5.5 and 5.6.2, RFC 9112 section 3)
// at each edge of their ranges, and a head's framing read off uWS's request.
import test from 'ava';
import type { HttpRequest } from 'uWebSockets.js';
import { fieldValueVerdict, isToken, isVisibleAscii, peerValueVerdict, withoutBlanks } from '../../../actors/proxy/proxy-front/http-grammar.js';
import { headProblem } from '../../../src/http/request-framing.js';

const character = (code: number) => String.fromCharCode(code);

test('a token is one or more tchar: every tchar passes, and no other code unit below U+0100', (t) => {
  const tchar = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  t.false(isToken(''));
  t.true(isToken(tchar));
  for (let code = 0; code < 0x100; code++) t.is(isToken(`a${character(code)}`), tchar.includes(character(code)), `U+${code.toString(16)}`);
});

test('visible ASCII is U+0021 to U+007E', (t) => {
  t.true(isVisibleAscii(''));
  t.true(isVisibleAscii('!/~'));
  for (let code = 0; code < 0x100; code++) t.is(isVisibleAscii(`/${character(code)}`), code >= 0x21 && code <= 0x7e, `U+${code.toString(16)}`);
});

test('a field value: VCHAR, SP and HTAB are ascii, U+0080 to U+00FF obs-text, anything else invalid', (t) => {
  const expected = (code: number) => {
    if (code === 0x09 || (code >= 0x20 && code <= 0x7e)) return 'ascii';
    if (code >= 0x80 && code <= 0xff) return 'obs-text';
    return 'invalid';
  };
  for (let code = 0; code <= 0x100; code++) t.is(fieldValueVerdict(`a${character(code)}b`), expected(code), `U+${code.toString(16)}`);
  t.is(fieldValueVerdict(''), 'ascii');
  t.is(fieldValueVerdict('\x80\x7f'), 'invalid', 'an invalid unit after obs-text');
  t.is(fieldValueVerdict('\xffa'), 'obs-text', 'obs-text stays the verdict past later ASCII');
});

test("a peer's value: CR, LF and NUL break the line, bytes from 0x80 are obs-text, other controls pass", (t) => {
  for (let code = 0; code < 0x100; code++) {
    const verdict = code === 0x0d || code === 0x0a || code === 0x00 ? 'breaks-line' : code >= 0x80 ? 'obs-text' : 'ascii';
    t.is(peerValueVerdict(`a${character(code)}b`), verdict, `U+${code.toString(16)}`);
  }
  t.is(peerValueVerdict('\x80\n'), 'breaks-line', 'a line break after obs-text');
  t.is(peerValueVerdict('\xe9a'), 'obs-text');
  t.is(peerValueVerdict(''), 'ascii');
});

test('withoutBlanks takes SP and HTAB from both ends and nothing else', (t) => {
  t.is(withoutBlanks(' \t a b \t '), 'a b');
  t.is(withoutBlanks('\t\ta'), 'a');
  t.is(withoutBlanks('a\t\t'), 'a');
  t.is(withoutBlanks('   '), '');
  t.is(withoutBlanks(''), '');
  t.is(withoutBlanks('\xa0a\r'), '\xa0a\r', 'NBSP and CR stay');
  t.is(withoutBlanks('\na\n'), '\na\n');
});

/** A request as uWS's forEach gives its headers. */
const request = (headers: [string, string][]) =>
  ({ forEach: (each: (name: string, value: string) => void) => headers.forEach(([name, value]) => each(name, value)) }) as unknown as HttpRequest;

test('headProblem reads every header of the request and names what refuses it', (t) => {
  t.is(headProblem(request([['host', 'a.test']])), undefined);
  t.is(headProblem(request([])), undefined);
  t.is(
    headProblem(
      request([
        ['host', 'a.test'],
        ['accept', '*/*'],
        ['host', 'b.test'],
      ]),
    ),
    'more than one Host header',
  );
  t.is(headProblem(request([['x-a', 'a\x7fb']])), 'the x-a header holds a control character');
});
