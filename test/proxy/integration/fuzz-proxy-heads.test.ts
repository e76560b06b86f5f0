// Property fuzz of certhub-agent proxy's request heads, judged by what the backend parsed: random
// methods, targets, header names and values mixing visible ASCII, blanks, obs-text and U+0080-U+01FF
// (whose low bytes alias CR, LF and NUL), each sent as UTF-8 over TLS on a connection of its own.
// Whatever the proxy answers, the backend (strict llhttp, one kept-alive connection shared by all)
// must never parse more requests than the client sent, nor a request line or a header the client did
// not send as one.
import assert from 'node:assert/strict';
import { METHODS } from 'node:http';
import test from 'ava';
import fc from 'fast-check';
import { startProxyTo } from '../../helpers/agent-proxy.js';
import { checkAsyncProperty } from '../../helpers/fuzz.js';
import { startParsingBackend } from '../helpers/parsing-backend.js';
import { rawExchange } from '../../helpers/raw-http.js';

const visibleAscii = fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code));
const blank = fc.constantFrom(' ', '\t');
const obsText = fc.integer({ min: 0x80, max: 0xff }).map((code) => String.fromCharCode(code));
/** U+0100-U+01FF, and the U+01xx aliases of CR, LF, NUL and space in particular. */
const aliases = fc.oneof(
  fc.integer({ min: 0x100, max: 0x1ff }).map((code) => String.fromCharCode(code)),
  fc.constantFrom('\u010d\u010a', '\u010a', '\u0100', '\u0120'),
);

const joined = (character: fc.Arbitrary<string>, maxLength: number) => fc.array(character, { maxLength }).map((characters) => characters.join(''));
/** Most parts are well formed, so that many requests pass and the backend's view is tried; the rest mix in every kind of character. */
const part = (clean: fc.Arbitrary<string>, maxLength: number) =>
  fc.oneof(
    { weight: 4, arbitrary: joined(clean, maxLength) },
    { weight: 1, arbitrary: joined(fc.oneof({ weight: 4, arbitrary: visibleAscii }, blank, obsText, { weight: 2, arbitrary: aliases }), maxLength) },
  );
const text = (maxLength: number) => part(fc.oneof({ weight: 6, arbitrary: visibleAscii }, blank, obsText), maxLength);

const token = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,12}$/);
// Methods the backend's llhttp knows (it refuses any other token, which says nothing of the proxy), and garbage.
const method = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...METHODS) },
  { weight: 1, arbitrary: joined(fc.oneof(visibleAscii, obsText, aliases), 6).filter((value) => !/^[A-Za-z0-9!#$%&'*+.^_`|~-]*$/.test(value)) },
);
// A name holding non-ASCII is left out: uWS holds such a head unanswered until its own timeout
// (hostile-clients-unicode.test.ts refuses every one of them).
// No framing fields: a length with no body behind it only waits (hostile-clients.test.ts sends the framing attacks).
const field = fc.tuple(fc.oneof(token, fc.constantFrom('X-Forwarded-For', 'X-Real-IP', 'Host', 'X_Forwarded_For', 'Cookie')), text(24));
const request = fc.record({ method, target: part(visibleAscii, 24).map((rest) => `/${rest}`), fields: fc.array(field, { maxLength: 4 }) });

/** Set by the proxy itself from what it saw: never the client's. */
const setByProxy = new Set(['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host']);

/** What uws-pack 20.0.8 trims around a value: bytes up to 0x20 and, read as signed chars, every byte from 0x80 up. */
const trimmedByListener = (byte: number) => byte <= 0x20 || byte >= 0x80;

/** The client's value as the backend may get it: without the bytes the listener trims around it. */
function deliverable(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  let start = 0;
  let end = bytes.length;
  while (start < end && trimmedByListener(bytes[start]!)) start++;
  while (end > start && trimmedByListener(bytes[end - 1]!)) end--;
  return bytes.subarray(start, end);
}

test('whatever the head, the backend parses no request, line or header that the client did not send as one', async (t) => {
  const backend = await startParsingBackend(t);
  const { port } = await startProxyTo(t, backend.address);
  const property = fc.asyncProperty(request, async ({ method: verb, target, fields }) => {
    const before = backend.requests.length;
    const errorsBefore = backend.parseErrors.length;
    const head = `${verb} ${target} HTTP/1.1\r\nHost: app.test\r\n${fields.map(([name, value]) => `${name}: ${value}\r\n`).join('')}Connection: close\r\n\r\n`;
    // Each answer ends with its connection (Connection: close, or a refusal): the backend has seen all it will see of it.
    const answer = await rawExchange(port, Buffer.from(head, 'utf8'), { servername: 'app.test', quietMs: 30_000 });
    assert.ok(answer.closed, 'the connection ends');
    assert.deepEqual(backend.parseErrors.slice(errorsBefore), [], 'the backend parsed every head it got');
    const got = backend.requests.slice(before);
    assert.ok(got.length <= 1, `one request sent, ${got.length} parsed: ${JSON.stringify(got)}`);
    if (got.length === 0) return;
    const [request] = got;
    assert.equal(Buffer.from(request!.method, 'latin1').toString('utf8'), verb);
    assert.equal(Buffer.from(request!.url, 'latin1').toString('utf8'), target);
    const sent = [['host', 'app.test'] as const, ...fields.map(([name, value]) => [name.toLowerCase(), value] as const)];
    for (let index = 0; index < request!.rawHeaders.length; index += 2) {
      const name = request!.rawHeaders[index]!.toLowerCase();
      if (setByProxy.has(name)) continue;
      const bytes = Buffer.from(request!.rawHeaders[index + 1]!, 'latin1');
      const match = sent.some(([sentName, value]) => sentName === name && deliverable(value).equals(bytes));
      assert.ok(match, `the backend got ${name}: ${JSON.stringify(bytes.toString('latin1'))}, which the client never sent`);
    }
  });
  await checkAsyncProperty(t, property, 300);
  // The property says nothing if every head was refused, or none: both kinds must have come.
  t.log(`${backend.requests.length} of 300 requests forwarded`);
  t.true(backend.requests.length >= 30 && backend.requests.length <= 270, `${backend.requests.length} of 300 forwarded`);
});
