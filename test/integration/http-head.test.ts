// HEAD (RFC 9110 §9.3.2): the status and headers GET would give, the GET body's Content-Length, and
// no body. Requests are pipelined on one connection, so a body sent after a HEAD answer would be
// read as the start of the next answer and fail the parse.
import test from 'ava';
import { EventStream } from '../../src/http/sse.js';
import { loadStaticAssets, serveStatic } from '../../src/http/static.js';
import { projectPath } from '../helpers/process.js';
import { pipelined } from '../helpers/raw-http.js';
import { withServer } from '../helpers/with-server.js';

const portOf = (url: string) => Number(new URL(url).port);
/** Headers that differ between two answers for reasons other than the method. */
const varying = new Set(['date', 'connection']);

function sameHeaders(get: Map<string, string>, head: Map<string, string>): boolean {
  const significant = (headers: Map<string, string>) => JSON.stringify([...headers].filter(([name]) => !varying.has(name)).sort());
  return significant(get) === significant(head);
}

test(
  'HEAD on a JSON route: same status and headers as GET, its Content-Length, no body',
  withServer,
  ({ router }) => {
    router.get('/thing', (_request, reply) => reply.json(200, { name: 'ünïcode', list: [1, 2, 3] }, { 'X-Extra': 'yes' }));
    router.get('/missing', (_request, reply) => reply.json(404, { error: 'no thing' }));
  },
  async (t, { url }) => {
    const [head, get, headMissing, headUnknown, last] = await pipelined(portOf(url), [
      { method: 'HEAD', path: '/thing' },
      { method: 'GET', path: '/thing' },
      { method: 'HEAD', path: '/missing' },
      { method: 'HEAD', path: '/nowhere' },
      { method: 'GET', path: '/thing' },
    ]);
    t.is(head?.status, 200);
    t.is(get?.status, 200);
    t.is(head?.body.length, 0);
    t.is(head?.headers.get('content-length'), String(get?.body.length));
    t.true(sameHeaders(get!.headers, head!.headers), `GET ${JSON.stringify([...get!.headers])} HEAD ${JSON.stringify([...head!.headers])}`);
    t.deepEqual(JSON.parse(get!.body.toString()), { name: 'ünïcode', list: [1, 2, 3] });
    t.is(headMissing?.status, 404);
    t.is(headMissing?.headers.get('content-length'), String(Buffer.byteLength('{"error":"no thing"}')));
    t.is(headUnknown?.status, 404);
    t.is(last?.status, 200, 'the connection carries on after the HEAD answers');
  },
);

test(
  'HEAD on static files and pages gives their length, type, ETag and security headers',
  withServer,
  async ({ router }) => {
    serveStatic(router, await loadStaticAssets(projectPath('test/fixtures/static')), '/ui');
  },
  async (t, { url }) => {
    const paths = ['/ui/', '/ui/index.html', '/ui/app-ABCD1234.js', '/ui/style.css'];
    const answers = await pipelined(
      portOf(url),
      paths.flatMap((path) => [
        { method: 'HEAD', path },
        { method: 'GET', path },
      ]),
    );
    for (const [index, path] of paths.entries()) {
      const head = answers[2 * index];
      const get = answers[2 * index + 1];
      t.is(head?.status, 200, path);
      t.true(get !== undefined && get.body.length > 0, path);
      t.is(head?.headers.get('content-length'), String(get?.body.length), path);
      t.true(sameHeaders(get!.headers, head!.headers), path);
      t.is(head?.headers.get('x-content-type-options'), 'nosniff', path);
    }
    t.regex(answers[0]?.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  },
);

test(
  'HEAD on a streamed download gives its length without streaming it; on an event stream, the headers only',
  withServer,
  ({ router, server }) => {
    const bytes = Buffer.alloc(3 * 1024 * 1024, 7);
    router.get('/download', (_request, reply) =>
      reply.stream(200, { 'Content-Type': 'application/octet-stream' }, bytes.length, (offset) => bytes.subarray(offset, offset + 65536)),
    );
    router.get('/events', (request, reply) => {
      const stream = new EventStream(request, reply, server);
      stream.send('hello');
    });
    router.get('/takes', (_request, reply) => reply.text(200, 'taken'), { head: false });
  },
  async (t, { url }) => {
    const [download, events, takes, after] = await pipelined(portOf(url), [
      { method: 'HEAD', path: '/download' },
      { method: 'HEAD', path: '/events' },
      { method: 'HEAD', path: '/takes' },
      { method: 'GET', path: '/takes' },
    ]);
    t.is(download?.status, 200);
    t.is(download?.headers.get('content-length'), String(3 * 1024 * 1024));
    t.is(download?.headers.get('content-type'), 'application/octet-stream');
    t.is(events?.status, 200);
    t.is(events?.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    t.is(takes?.status, 405, 'a GET route may refuse HEAD');
    t.is(takes?.headers.get('allow'), 'GET');
    t.is(after?.body.toString(), 'taken');
  },
);
