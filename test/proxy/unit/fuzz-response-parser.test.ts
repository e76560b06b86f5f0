// Property tests of the proxy's backend response parser: a response framed any way
// HTTP/1.1 allows (Content-Length, chunked with extensions and trailers, to the end of the
// connection, after 1xx heads) reads the same however the socket cuts it; a response cut short
// never ends; noise and malformed framing are refused with MalformedResponse, never another error.
import assert from 'node:assert/strict';
import test from 'ava';
import fc from 'fast-check';
import { MalformedResponse, ResponseParser, type ResponseHead } from '../../../actors/proxy/proxy-front/response-parser.js';
import { checkProperty, chop } from '../../helpers/fuzz.js';

interface Seen {
  heads: ResponseHead[];
  body: Buffer[];
  ended: number;
}

function parserFor(bodiless = false): { parser: ResponseParser; seen: Seen } {
  const seen: Seen = { heads: [], body: [], ended: 0 };
  const parser = new ResponseParser(
    {
      head: (head) => seen.heads.push(head),
      data: (chunk) => {
        // The parser hands over slices of what it was fed: copied, as the socket's memory is reused.
        seen.body.push(Buffer.from(chunk));
        return true;
      },
      end: () => seen.ended++,
    },
    bodiless,
  );
  return { parser, seen };
}

type Framing = { kind: 'length' } | { kind: 'chunked'; sizes: number[]; extensions: boolean; trailers: string[] } | { kind: 'until-close' };

interface Response {
  interim: number[];
  status: number;
  headers: [string, string][];
  body: Buffer;
  framing: Framing;
}

const token = fc
  .stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/)
  .filter((name) => !['content-length', 'transfer-encoding', 'connection'].includes(name.toLowerCase()));
const headerValue = fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,30}[\x21-\x7e])?$/);

const response: fc.Arbitrary<Response> = fc
  .record({
    interim: fc.array(fc.constantFrom(100, 102, 103), { maxLength: 2 }),
    status: fc.integer({ min: 200, max: 599 }).filter((status) => status !== 204 && status !== 304),
    headers: fc.array(fc.tuple(token, headerValue), { maxLength: 6 }),
    body: fc.uint8Array({ maxLength: 3000 }).map((bytes) => Buffer.from(bytes)),
    framing: fc.oneof(
      fc.constant<Framing>({ kind: 'length' }),
      fc.record({
        kind: fc.constant('chunked' as const),
        sizes: fc.array(fc.integer({ min: 1, max: 700 }), { maxLength: 8 }),
        extensions: fc.boolean(),
        trailers: fc.array(
          fc.tuple(token, headerValue).map(([name, value]) => `${name}: ${value}`),
          { maxLength: 3 },
        ),
      }),
      fc.constant<Framing>({ kind: 'until-close' }),
    ),
  })
  .map((fields) => ({ ...fields }));

/** The body in chunks of the sizes given, the last one taking what is left. */
function chunked(body: Buffer, framing: Extract<Framing, { kind: 'chunked' }>): Buffer {
  const pieces: Buffer[] = [];
  let offset = 0;
  for (const size of [...framing.sizes, body.length]) {
    const chunk = body.subarray(offset, offset + size);
    offset += chunk.length;
    if (chunk.length === 0) continue;
    pieces.push(Buffer.from(`${chunk.length.toString(16)}${framing.extensions ? ';name="x;y"' : ''}\r\n`), chunk, Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`0\r\n${framing.trailers.map((line) => `${line}\r\n`).join('')}\r\n`));
  return Buffer.concat(pieces);
}

function encode(entry: Response): Buffer {
  const interim = entry.interim.map((status) => `HTTP/1.1 ${status} Interim\r\nLink: </a>\r\n\r\n`).join('');
  const framingHeader =
    entry.framing.kind === 'length'
      ? `Content-Length: ${entry.body.length}\r\n`
      : entry.framing.kind === 'chunked'
        ? 'Transfer-Encoding: chunked\r\n'
        : 'Connection: close\r\n';
  const head = `${interim}HTTP/1.1 ${entry.status} Reason Phrase\r\n${entry.headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}${framingHeader}\r\n`;
  const body = entry.framing.kind === 'chunked' ? chunked(entry.body, entry.framing) : entry.body;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

test('a response framed any way, cut anywhere: one head with its status and headers, the body whole, one end', (t) => {
  checkProperty(
    t,
    fc.property(response, fc.array(fc.nat(), { maxLength: 30 }), (entry, cuts) => {
      const { parser, seen } = parserFor();
      for (const piece of chop(encode(entry), cuts)) parser.feed(piece);
      if (entry.framing.kind === 'until-close') {
        assert.equal(seen.ended, 0, 'a body to the end of the connection ends with it');
        assert.ok(parser.finish());
      }
      assert.equal(seen.heads.length, 1);
      assert.equal(seen.heads[0]?.statusCode, entry.status);
      for (const [name, value] of entry.headers) assert.ok([seen.heads[0]?.headers[name.toLowerCase()]].flat().includes(value), `header ${name}`);
      assert.equal(seen.heads[0]?.keepAlive, entry.framing.kind !== 'until-close');
      assert.deepEqual(Buffer.concat(seen.body), entry.body);
      assert.equal(seen.ended, 1);
      assert.ok(parser.done);
    }),
    300,
  );
});

test('a response cut short never ends: the connection closing mid-body is reported as truncated', (t) => {
  checkProperty(
    t,
    fc.property(
      response.filter((entry) => entry.framing.kind !== 'until-close'),
      fc.nat(),
      (entry, cut) => {
        const bytes = encode(entry);
        const { parser, seen } = parserFor();
        parser.feed(bytes.subarray(0, cut % bytes.length));
        assert.equal(seen.ended, 0);
        assert.equal(parser.finish(), false);
        assert.equal(seen.ended, 0);
      },
    ),
    300,
  );
});

/** Feeds pieces and tells how the parser took them: read, refused as malformed, or anything else thrown. */
function outcome(pieces: readonly Uint8Array[], bodiless = false): 'read' | 'malformed' {
  const { parser } = parserFor(bodiless);
  try {
    for (const piece of pieces) parser.feed(Buffer.from(piece));
    parser.finish();
    return 'read';
  } catch (error) {
    if (error instanceof MalformedResponse) return 'malformed';
    throw error;
  }
}

test('noise, alone or after a valid head, is read or refused as MalformedResponse, nothing else', (t) => {
  checkProperty(
    t,
    fc.property(
      fc.option(response, { nil: undefined }),
      fc.array(fc.uint8Array({ maxLength: 2000 }), { maxLength: 10 }),
      fc.boolean(),
      (entry, noise, bodiless) => {
        const start = entry === undefined ? [] : [encode(entry).subarray(0, 200)];
        outcome([...start, ...noise], bodiless);
      },
    ),
    300,
  );
});

test('a chunk size that is not hexadecimal digits is refused, not read for the digits it starts with', (t) => {
  const notHex = fc.oneof(
    fc.tuple(fc.integer({ min: 1, max: 255 }), fc.constantFrom('g', 'x', 'z', '-', '+', '.5', ' 1', ',2')).map(([size, tail]) => `${size.toString(16)}${tail}`),
    fc.constantFrom('0x5', '+5', '-0', '', ' ', '5 5', 'ffffffffffffffffffff'),
  );
  checkProperty(
    t,
    fc.property(notHex, (size) => {
      const bytes = Buffer.from(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${size}\r\n${'a'.repeat(300)}\r\n0\r\n\r\n`, 'latin1');
      assert.equal(outcome([bytes]), 'malformed', JSON.stringify(size));
    }),
    200,
  );
});
