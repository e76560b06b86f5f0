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

test('the status line: a reason phrase is optional, three digits exactly, HTTP/1.0 or 1.1 only', (t) => {
  const bare = parser();
  bare.parser.feed(Buffer.from('HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n'));
  t.like(bare.seen.heads[0], { statusCode: 404, statusMessage: '' });
  const spaced = parser();
  spaced.parser.feed(Buffer.from('HTTP/1.1 503 Service Unavailable \r\nContent-Length: 0\r\n\r\n'));
  t.like(spaced.seen.heads[0], { statusCode: 503, statusMessage: 'Service Unavailable ' });
  for (const statusLine of [
    'HTTP/1.1 2000 OK',
    'HTTP/1.1 20 OK',
    'HTTP/1.1 2x0 OK',
    'HTTP/1.2 200 OK',
    'HTTP/2.0 200 OK',
    'xHTTP/1.1 200 OK',
    'HTTP/1.1 200OK',
    'HTTP/1.1  200 OK',
  ]) {
    t.throws(
      () => parser().parser.feed(Buffer.from(`${statusLine}\r\nContent-Length: 0\r\n\r\n`)),
      { instanceOf: MalformedResponse, message: /bad status line/ },
      statusLine,
    );
  }
});

test('keep-alive: HTTP/1.1 unless Connection lists close, HTTP/1.0 only when it lists keep-alive, in any case and any Connection field', (t) => {
  const keepAlive = (head: string) => {
    const { parser: target, seen } = parser();
    target.feed(Buffer.from(`${head}Content-Length: 0\r\n\r\n`));
    return seen.heads[0]!.keepAlive;
  };
  t.true(keepAlive('HTTP/1.1 200 OK\r\n'));
  t.false(keepAlive('HTTP/1.1 200 OK\r\nConnection: Close\r\n'));
  t.false(keepAlive('HTTP/1.1 200 OK\r\nConnection: x-a\r\nConnection: close\r\n'));
  t.true(keepAlive('HTTP/1.1 200 OK\r\nConnection: upgrade\r\n'));
  t.false(keepAlive('HTTP/1.0 200 OK\r\n'));
  t.true(keepAlive('HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\n'));
  t.true(keepAlive('HTTP/1.0 200 OK\r\nConnection: x-a\r\nConnection: keep-alive\r\n'));
  t.true(keepAlive('HTTP/1.1 200 OK\r\nConnection: closed-caption\r\n'), 'an option is compared whole');
  t.false(keepAlive('HTTP/1.0 200 OK\r\nConnection: keep-alive-please\r\n'));
  t.false(keepAlive('HTTP/1.1 200 OK\r\nConnection: upgrade , CLOSE\r\n'));
});

test('Transfer-Encoding: chunked only as the last coding; other codings run to the end of the connection, whatever Content-Length says', (t) => {
  const framing = (fields: string) => {
    const target = parser();
    target.parser.feed(Buffer.from(`HTTP/1.1 200 OK\r\n${fields}\r\n`));
    return target.parser.endsWithConnection ? 'until-close' : 'framed';
  };
  t.is(framing('Transfer-Encoding: gzip, chunked\r\n'), 'framed');
  t.is(framing('Transfer-Encoding: chunked, gzip\r\nContent-Length: 5\r\n'), 'until-close');
  t.is(framing('Transfer-Encoding: chunkedx\r\n'), 'until-close');
  t.is(framing('Transfer-Encoding: gzip\r\nContent-Length: 5\r\n'), 'until-close');
  t.is(framing('Content-Length: 5\r\n'), 'framed');
});

test('framing: chunked in any case wins over Content-Length; a Content-Length sent twice or not digits is refused; 304 has no body', (t) => {
  const chunked = parser();
  chunked.parser.feed(
    Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: Chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n'),
  );
  t.is(chunked.seen.body, 'abc');
  t.is(chunked.seen.ended, 1);
  t.false(chunked.parser.endsWithConnection);
  for (const lengths of [
    'Content-Length: 2\r\nContent-Length: 2\r\n',
    'Content-Length: 2\r\nContent-Length: 3\r\n',
    'Content-Length: 2 3\r\n',
    'Content-Length: 0x2\r\n',
    'Content-Length: \r\n',
  ]) {
    t.throws(
      () => parser().parser.feed(Buffer.from(`HTTP/1.1 200 OK\r\n${lengths}\r\nok`)),
      { instanceOf: MalformedResponse, message: 'bad content-length' },
      lengths,
    );
  }
  const notModified = parser();
  notModified.parser.feed(Buffer.from('HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n'));
  t.is(notModified.seen.ended, 1);
  t.true(notModified.parser.done);
  t.is(notModified.seen.heads[0]!.contentLength, '10');
  const untilClose = parser();
  untilClose.parser.feed(Buffer.from('HTTP/1.1 200 OK\r\n\r\n'));
  t.true(untilClose.parser.endsWithConnection);
  t.false(untilClose.parser.done);
});

test('a name sent three times keeps every value in order; a value may hold a colon', (t) => {
  const { parser: target, seen } = parser();
  target.feed(Buffer.from('HTTP/1.1 200 OK\r\nVary: a\r\nVary: b\r\nVary: c\r\nLocation: http://x:8080/\r\nContent-Length: 0\r\n\r\n'));
  const head = seen.heads[0]!;
  t.deepEqual(head.headers, { vary: ['a', 'b', 'c'], location: 'http://x:8080/', 'content-length': '0' });
});

test('a head or a chunk-size line that runs past 64 KiB without its end is refused', (t) => {
  const head = 'HTTP/1.1 200 OK\r\nX-Big: ';
  const big = parser();
  big.parser.feed(Buffer.from(head + 'a'.repeat(64 * 1024 - head.length)));
  t.throws(() => big.parser.feed(Buffer.from('a')), { instanceOf: MalformedResponse, message: 'the response head is too large' });
  const line = parser();
  line.parser.feed(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'));
  line.parser.feed(Buffer.from(`1;${'x'.repeat(64 * 1024 - 2)}`));
  t.throws(() => line.parser.feed(Buffer.from('x')), { instanceOf: MalformedResponse, message: 'a line is too long' });
});

test('a chunk longer than its size, or a malformed chunk size, is refused; a chunk size may end in blanks', (t) => {
  const head = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n';
  t.throws(() => parser().parser.feed(Buffer.from(`${head}3\r\nabcd\r\n0\r\n\r\n`)), {
    instanceOf: MalformedResponse,
    message: 'a chunk is longer than its size',
  });
  t.throws(() => parser().parser.feed(Buffer.from(`${head}x3\r\nabc\r\n`)), { instanceOf: MalformedResponse, message: /bad chunk size/ });
  t.throws(() => parser().parser.feed(Buffer.from(`${head}3x\r\nabc\r\n`)), { instanceOf: MalformedResponse, message: /bad chunk size/ });
  const blanks = parser();
  blanks.parser.feed(Buffer.from(`${head}A \t;ext\r\n0123456789\r\n0 \r\n\r\n`));
  t.is(blanks.seen.body, '0123456789');
  t.is(blanks.seen.ended, 1);
});

test('bytes left over from a fed buffer are copied: the caller may reuse its read buffer before the next feed', (t) => {
  const { parser: target, seen } = parser();
  const response = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nbody');
  const readBuffer = Buffer.alloc(response.length);
  // The first read holds the head and half of it: the parser keeps the half.
  response.copy(readBuffer, 0, 0, 20);
  target.feed(readBuffer.subarray(0, 20));
  readBuffer.fill('#');
  response.copy(readBuffer, 0, 20);
  target.feed(readBuffer.subarray(0, response.length - 20));
  t.like(seen.heads[0], { statusCode: 200, contentLength: '4' });
  t.is(seen.body, 'body');
  t.is(seen.ended, 1);
});

test('after the end, the parser reads nothing more; finish tells a finished response from a truncated one', (t) => {
  const { parser: target, seen } = parser();
  target.feed(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 500 Next\r\n\r\n'));
  t.is(seen.body, 'ok');
  t.is(seen.heads.length, 1);
  t.is(seen.ended, 1);
  t.true(target.finish());
  t.is(seen.ended, 1, 'finish after the end ends nothing again');
  const head = parser();
  head.parser.feed(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n'));
  t.false(head.parser.finish(), 'cut in the head');
});

test('a refusal is a MalformedResponse with ERR_BAD_GATEWAY, saying what was wrong and quoting at most the start of the line', (t) => {
  const refused = (text: string) => t.throws(() => parser().parser.feed(Buffer.from(text, 'latin1')), { instanceOf: MalformedResponse });
  const error = refused('SMTP ready\r\n\r\n');
  t.like(error, { name: 'MalformedResponse', code: 'ERR_BAD_GATEWAY', message: 'bad status line "SMTP ready"' });
  t.is(refused(`HTTP/1.1 2000 ${'r'.repeat(100)}\r\n\r\n`).message, `bad status line "HTTP/1.1 2000 ${'r'.repeat(46)}"`);
  t.is(refused('HTTP/1.1 200 O\x00K\r\n\r\n').message, 'the reason phrase holds a NUL');
  const ok = 'HTTP/1.1 200 OK\r\n';
  t.is(refused(`${ok}${'n'.repeat(100)}\r\n\r\n`).message, `bad header line "${'n'.repeat(60)}"`, 'no colon');
  t.is(refused(`${ok}: x\r\n\r\n`).message, 'bad header line ": x"', 'no name');
  t.is(refused(`${ok}X-A: a\r\n\tX-B: b\r\n\r\n`).message, 'a folded header line', 'folded with a tab');
  t.is(refused(`${ok}X-A: a\r\n X-B: b\r\n\r\n`).message, 'a folded header line', 'folded with a space');
  t.is(refused(`${ok}X-\xe9${'n'.repeat(100)}: a\r\n\r\n`).message, `a header name that is not a token "x-\xe9${'n'.repeat(57)}"`);
  t.is(refused(`${ok}X-A: a\x00b\r\n\r\n`).message, 'the x-a header holds a bare CR, LF or NUL');
  t.is(refused(`${ok}Transfer-Encoding: chunked\r\n\r\n${'z'.repeat(100)}\r\n`).message, `bad chunk size "${'z'.repeat(40)}"`);
});

test('a head without fields keeps its whole reason phrase; obs-text in the reason phrase is flagged', (t) => {
  const bare = parser();
  bare.parser.feed(Buffer.from('HTTP/1.1 204 No Content\r\n\r\n'));
  t.like(bare.seen.heads[0], { statusCode: 204, statusMessage: 'No Content', hasObsText: false });
  const latin = parser();
  latin.parser.feed(Buffer.from('HTTP/1.1 200 D\xe9j\xe0 vu\r\nContent-Length: 0\r\n\r\n', 'latin1'));
  t.like(latin.seen.heads[0], { statusMessage: 'D\xe9j\xe0 vu', hasObsText: true });
});

test('a chunk size of several hex digits', (t) => {
  const { parser: target, seen } = parser();
  target.feed(Buffer.from(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1A\r\n${'a'.repeat(26)}\r\n00010\r\n${'b'.repeat(16)}\r\n0\r\n\r\n`));
  t.is(seen.body, 'a'.repeat(26) + 'b'.repeat(16));
  t.is(seen.ended, 1);
});

test('each Connection or Transfer-Encoding field is a list element of its own: values in two fields never join into one word', (t) => {
  const connection = parser();
  connection.parser.feed(Buffer.from('HTTP/1.0 200 OK\r\nConnection: keep-\r\nConnection: alive\r\nContent-Length: 0\r\n\r\n'));
  t.false(connection.seen.heads[0]!.keepAlive);
  const transferEncoding = parser();
  transferEncoding.parser.feed(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chun\r\nTransfer-Encoding: ked\r\n\r\nbody'));
  t.true(transferEncoding.parser.endsWithConnection, 'not chunked');
});

test('a body that runs to the end of the connection ends the connection, whatever the version says', (t) => {
  const { parser: target, seen } = parser();
  target.feed(Buffer.from('HTTP/1.1 200 OK\r\nConnection: keep-alive\r\n\r\nbody'));
  t.false(seen.heads[0]!.keepAlive);
  t.true(target.endsWithConnection);
});
