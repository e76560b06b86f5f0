import test from 'ava';
import { MalformedResponse, ResponseParser, type ResponseHead } from '../../../actors/proxy/proxy-front/response-parser.js';

interface Seen {
  heads: ResponseHead[];
  body: string;
  ended: number;
}

function parser(options: { bodiless?: boolean; pauseEvery?: boolean } = {}): { parser: ResponseParser; seen: Seen } {
  const seen: Seen = { heads: [], body: '', ended: 0 };
  const instance = new ResponseParser(
    {
      head: (head) => seen.heads.push(head),
      data: (chunk) => {
        seen.body += chunk.toString('latin1');
        return options.pauseEvery !== true;
      },
      end: () => seen.ended++,
    },
    options.bodiless === true,
  );
  return { parser: instance, seen };
}

/** Feeds `text` one byte at a time: every boundary a socket could cut at. */
function feedBytes(target: ResponseParser, text: string): void {
  for (const byte of Buffer.from(text, 'latin1')) target.feed(Buffer.from([byte]));
}

test('a Content-Length body, cut at every byte, arrives whole and ends once; keep-alive by default', (t) => {
  const { parser: target, seen } = parser();
  feedBytes(target, 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n\r\nhello');
  t.is(seen.heads.length, 1);
  t.like(seen.heads[0], { statusCode: 200, statusMessage: 'OK', keepAlive: true });
  t.deepEqual(seen.heads[0]!.headers['set-cookie'], ['a=1', 'b=2']);
  t.is(seen.body, 'hello');
  t.is(seen.ended, 1);
  t.true(target.done);
});

test('a chunked body with extensions and trailers is decoded; 1xx heads are skipped', (t) => {
  const { parser: target, seen } = parser();
  feedBytes(
    target,
    'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nwiki\r\n6\r\npedia \r\nE\r\nin \r\n\r\nchunks.\r\n0\r\nX-Trailer: 1\r\n\r\n',
  );
  t.is(seen.heads.length, 1);
  t.is(seen.heads[0]!.statusCode, 201);
  t.is(seen.body, 'wikipedia in \r\n\r\nchunks.');
  t.is(seen.ended, 1);
});

test('no length and not chunked: the body runs to the end of the connection, which is not reused', (t) => {
  const { parser: target, seen } = parser();
  target.feed(Buffer.from('HTTP/1.0 200 OK\r\n\r\npart one, '));
  target.feed(Buffer.from('part two'));
  t.false(seen.heads[0]!.keepAlive);
  t.is(seen.ended, 0);
  t.true(target.finish());
  t.is(seen.body, 'part one, part two');
  t.is(seen.ended, 1);
});

test('HEAD, 204 and 304 have no body whatever their headers say', (t) => {
  const head = parser({ bodiless: true });
  head.parser.feed(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n'));
  t.is(head.seen.ended, 1);
  const noContent = parser();
  noContent.parser.feed(Buffer.from('HTTP/1.1 204 No Content\r\n\r\n'));
  t.is(noContent.seen.ended, 1);
  t.true(noContent.seen.heads[0]!.keepAlive);
});

test('a consumer that pauses gets the rest, and the end, only after resume', (t) => {
  const { parser: target, seen } = parser({ pauseEvery: true });
  target.feed(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nabc'));
  t.is(seen.body, 'abc');
  target.feed(Buffer.from('def'));
  t.is(seen.body, 'abc', 'nothing is handed over while paused');
  target.resume();
  t.is(seen.body, 'abcdef');
  t.is(seen.ended, 0, 'the end waits for the consumer to take more');
  target.resume();
  t.is(seen.ended, 1);
});

test('a truncated response does not end; malformed heads and chunk sizes throw', (t) => {
  const truncated = parser();
  truncated.parser.feed(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'));
  t.false(truncated.parser.finish());
  t.is(truncated.seen.ended, 0);
  t.throws(() => parser().parser.feed(Buffer.from('SMTP ready\r\n\r\n')), { instanceOf: MalformedResponse });
  t.throws(() => parser().parser.feed(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n')), { instanceOf: MalformedResponse });
  t.throws(() => parser().parser.feed(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n')), { instanceOf: MalformedResponse });
});

test('the head keeps its fields as a flat list in the order sent (names lower case, values trimmed), and the record by name on demand', (t) => {
  const { parser: target, seen } = parser();
  target.feed(Buffer.from('HTTP/1.1 200 OK\r\nServer: nginx\r\nSet-Cookie:  a=1 \r\nCONTENT-LENGTH: 2\r\nSet-Cookie: b=2\r\n\r\nok'));
  const head = seen.heads[0]!;
  t.deepEqual(head.fields, ['server', 'nginx', 'set-cookie', 'a=1', 'content-length', '2', 'set-cookie', 'b=2']);
  t.is(head.contentLength, '2');
  t.deepEqual(head.headers, { server: 'nginx', 'set-cookie': ['a=1', 'b=2'], 'content-length': '2' });
  t.is(seen.body, 'ok');
});

test('a bare CR, LF or NUL in a field value, a folded line and a name that is not a token are refused, so the client never gets a line the backend split', (t) => {
  const heads = [
    'HTTP/1.1 200 OK\r\nX-A: a\rSet-Cookie: stolen=1\r\nContent-Length: 0\r\n\r\n',
    'HTTP/1.1 200 OK\r\nX-A: a\nSet-Cookie: stolen=1\r\nContent-Length: 0\r\n\r\n',
    'HTTP/1.1 200 OK\r\nX-A: a\x00b\r\nContent-Length: 0\r\n\r\n',
    'HTTP/1.1 200 OK\r\nX-A: a\r\n Set-Cookie: stolen=1\r\nContent-Length: 0\r\n\r\n',
    'HTTP/1.1 200 OK\r\nX-A: a\r\n\tb\r\nContent-Length: 0\r\n\r\n',
    'HTTP/1.1 200 OK\r\nX A: a\r\nContent-Length: 0\r\n\r\n',
    'HTTP/1.1 200 OK\r\nX-\xe9: a\r\nContent-Length: 0\r\n\r\n',
    'HTTP/1.1 200 O\x00K\r\nContent-Length: 0\r\n\r\n',
  ];
  for (const head of heads) t.throws(() => parser().parser.feed(Buffer.from(head, 'latin1')), { instanceOf: MalformedResponse }, JSON.stringify(head));
});

test('obs-text in a value is kept byte for byte and flagged; blanks around a value and before the colon are removed, nothing else', (t) => {
  const { parser: target, seen } = parser();
  target.feed(Buffer.from('HTTP/1.1 200 OK\r\nX-Name : \tZo\xeb\xa0\t \r\nContent-Length: 0\r\n\r\n', 'latin1'));
  const head = seen.heads[0]!;
  t.deepEqual(head.fields, ['x-name', 'Zo\xeb\xa0', 'content-length', '0']);
  t.true(head.hasObsText);
  const plain = parser();
  plain.parser.feed(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'));
  t.false(plain.seen.heads[0]!.hasObsText);
});
