// Hostile clients that write their attack in non-ASCII: uWS hands the head over decoded as UTF-8, so
// U+010D U+010A (bytes C4 8D C4 8A) reach the proxy as characters whose low bytes are CR LF. Each
// attack is sent as those bytes over TLS to a real proxy whose backend parses strictly and records
// what it got: the backend must see nothing but the requests the clients sent, as they sent them.
// The other way, a backend whose header value holds a bare CR or LF gets its client a 502, never the line.
import { createServer } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import { startProxyTo } from '../../helpers/agent-proxy.js';
import { startParsingBackend, type ParsingBackend } from '../helpers/parsing-backend.js';
import { rawExchange } from '../../helpers/raw-http.js';

/** Each ASCII character moved to U+01xx: its low byte is the character. */
const aliased = (text: string) => [...text].map((character) => String.fromCharCode(0x100 + character.charCodeAt(0))).join('');

/**
 * The smuggled request: its Content-Length swallows what comes next on the backend connection. It
 * ends in ASCII (`X-Pad:z`, no space, so that it may stand in a request line too): uws-pack 20.0.8 strips a value's trailing bytes from 0x80 up, as if they
 * were blanks, so a value ending in aliased characters would lose them before the proxy saw it.
 */
const smuggledPost = `${aliased('\r\n\r\nPOST /x HTTP/1.1\r\nHost: app.test\r\nContent-Length: 120\r\n')}X-Pad:z`;

const utf8 = (text: string) => Buffer.from(text, 'utf8');

async function proxyBefore(t: ExecutionContext, config: object = {}): Promise<{ port: number; backend: ParsingBackend }> {
  const backend = await startParsingBackend(t);
  return { port: (await startProxyTo(t, backend.address, config)).port, backend };
}

const send = (port: number, bytes: Buffer) => rawExchange(port, bytes, { servername: 'app.test', quietMs: 1000 });

const victim = (port: number) => send(port, utf8('GET /account HTTP/1.1\r\nHost: app.test\r\nCookie: session=victim-secret\r\nConnection: close\r\n\r\n'));

/** The backend got the victim's request alone, with its cookie, and the victim got the answer to it. */
async function onlyTheVictimReached(t: ExecutionContext, port: number, backend: ParsingBackend): Promise<void> {
  const answer = await victim(port);
  t.deepEqual(answer.statuses, [200], answer.bytes.toString('latin1'));
  t.regex(answer.bytes.toString('latin1'), /"url":"\/account","cookie":"session=victim-secret"/);
  t.deepEqual(
    backend.requests.map(({ method, url }) => `${method} ${url}`),
    ['GET /account'],
  );
  t.is(backend.header(backend.requests[0]!, 'cookie'), 'session=victim-secret');
  t.deepEqual(backend.parseErrors, []);
}

test("a header value carrying CR LF as U+010D U+010A is refused with 400; the next client's request is not captured", async (t) => {
  const { port, backend } = await proxyBefore(t);
  const attack = await send(port, utf8(`GET / HTTP/1.1\r\nHost: app.test\r\nX-Note: a${smuggledPost}\r\n\r\n`));
  t.deepEqual(attack.statuses, [400], attack.bytes.toString('latin1'));
  t.regex(attack.bytes.toString('latin1'), /"error":"malformed request: the x-note header holds a control character or a character above U\+00FF"/);
  await onlyTheVictimReached(t, port, backend);
});

test('the same attack through the path, and through the query, is refused with 400', async (t) => {
  const { port, backend } = await proxyBefore(t);
  for (const target of [`/a${aliased(' HTTP/1.1\r\nHost: app.test')}${smuggledPost}`, `/a?q=${smuggledPost}`]) {
    const attack = await send(port, utf8(`GET ${target} HTTP/1.1\r\nHost: app.test\r\n\r\n`));
    t.deepEqual(attack.statuses, [400], attack.bytes.toString('latin1'));
  }
  await onlyTheVictimReached(t, port, backend);
});

test('X-Forwarded-For cannot be written through an aliased header, nor the Host check passed by one', async (t) => {
  const { port, backend } = await proxyBefore(t);
  const spoof = await send(port, utf8(`GET / HTTP/1.1\r\nHost: app.test\r\nX-Note: a${aliased('\r\nX-Forwarded-For: 203.0.113.')}9\r\n\r\n`));
  t.deepEqual(spoof.statuses, [400]);
  const host = await send(port, utf8(`GET / HTTP/1.1\r\nHost: app.test:443${aliased('\r\nHost: other.tes')}t\r\n\r\n`));
  t.deepEqual(host.statuses, [400]);
  await onlyTheVictimReached(t, port, backend);
});

test('U+0100-U+01FF in the method, path, query, a header name or a value: refused every time, and the backend sees none of them', async (t) => {
  const { port, backend } = await proxyBefore(t);
  const parts = (character: string): [string, string][] => [
    ['method', `G${character}T / HTTP/1.1\r\nHost: app.test\r\n\r\n`],
    ['path', `GET /${character} HTTP/1.1\r\nHost: app.test\r\n\r\n`],
    ['query', `GET /?q=${character} HTTP/1.1\r\nHost: app.test\r\n\r\n`],
    ['name', `GET / HTTP/1.1\r\nHost: app.test\r\nX-${character}: v\r\n\r\n`],
    ['value', `GET / HTTP/1.1\r\nHost: app.test\r\nX-A: v${character}z\r\n\r\n`],
  ];
  // Sent side by side: a refusal makes the proxy close, unanswered, any other request from the same
  // address in the same turn (src/http/malformed.ts), and the listener refuses some heads itself before
  // the proxy reads them (a method it cannot parse: 505; a name with such bytes: no answer until its head
  // timeout). Any refusal, or silence, will do, so long as the backend sees nothing.
  for (let code = 0x100; code <= 0x1ff; code += 0x10) {
    const characters = Array.from({ length: 16 }, (_, step) => String.fromCharCode(code + step));
    const answers = await Promise.all(
      characters.flatMap((character) => parts(character).map(([part, text]) => send(port, utf8(text)).then((answer) => ({ part, character, answer })))),
    );
    for (const { part, character, answer } of answers) {
      const refused =
        (answer.closed || answer.bytes.length === 0) &&
        answer.statuses.length <= 1 &&
        answer.statuses.every((status) => status === 400 || (part === 'method' && status >= 400));
      t.true(refused, `${part} U+${character.charCodeAt(0).toString(16)}: ${answer.bytes.toString('latin1').slice(0, 120)}`);
    }
  }
  t.deepEqual(backend.requests, []);
  t.deepEqual(backend.parseErrors, []);
});

test('obs-text in a value reaches the backend as the bytes the client sent; names with an underscore and X-Real-IP do not reach it', async (t) => {
  const { port, backend } = await proxyBefore(t);
  const answer = await send(
    port,
    utf8(
      'GET /name HTTP/1.1\r\nHost: app.test\r\nX-Name: Zoë à\tla\r\nX_Forwarded_For: 203.0.113.9\r\nX-Real-IP: 203.0.113.9\r\nTrue-Client-IP: 203.0.113.9\r\nConnection: close\r\n\r\n',
    ),
  );
  t.deepEqual(answer.statuses, [200], answer.bytes.toString('latin1'));
  const [request] = backend.requests;
  t.deepEqual(Buffer.from(backend.header(request!, 'x-name') ?? '', 'latin1'), utf8('Zoë à\tla'));
  t.is(backend.header(request!, 'x_forwarded_for'), undefined);
  t.is(backend.header(request!, 'x-real-ip'), undefined);
  t.is(backend.header(request!, 'true-client-ip'), undefined);
  t.is(backend.header(request!, 'x-forwarded-for'), '127.0.0.1');
});

test('behind a proxy in trusted_proxies, its X-Forwarded-For is extended and its X-Real-IP kept', async (t) => {
  const { port, backend } = await proxyBefore(t, { trusted_proxies: ['127.0.0.1'] });
  const answer = await send(
    port,
    utf8('GET / HTTP/1.1\r\nHost: app.test\r\nX-Forwarded-For: 203.0.113.9\r\nX-Real-IP: 203.0.113.9\r\nConnection: close\r\n\r\n'),
  );
  t.deepEqual(answer.statuses, [200]);
  t.is(backend.header(backend.requests[0]!, 'x-forwarded-for'), '203.0.113.9, 127.0.0.1');
  t.is(backend.header(backend.requests[0]!, 'x-real-ip'), '203.0.113.9');
});

test('a backend header value with a bare CR or LF, or a folded line, gets the client a 502 and never the line it hides', async (t) => {
  const answers = ['X-A: a\nSet-Cookie: stolen=1', 'X-A: a\rSet-Cookie: stolen=1', 'X-A: a\r\n Set-Cookie: stolen=1'];
  let next = 0;
  const server = createServer((socket) => {
    const header = answers[next++ % answers.length]!;
    socket.once('data', () => socket.end(`HTTP/1.1 200 OK\r\n${header}\r\nContent-Length: 2\r\n\r\nok`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const { port } = await startProxyTo(t, `127.0.0.1:${(server.address() as { port: number }).port}`);
  for (const header of answers) {
    const answer = await send(port, utf8('GET / HTTP/1.1\r\nHost: app.test\r\nConnection: close\r\n\r\n'));
    t.deepEqual(answer.statuses, [502], JSON.stringify(header));
    t.notRegex(answer.bytes.toString('latin1'), /stolen/);
  }
});
