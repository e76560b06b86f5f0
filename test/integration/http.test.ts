import { request as rawRequest } from 'node:http';
import test from 'ava';
import { OutpostError } from '../../src/errors.js';
import { loadStaticAssets, serveStatic } from '../../src/http/static.js';
import { EventStream } from '../../src/http/sse.js';
import { projectPath } from '../helpers/process.js';
import { withServer } from '../helpers/with-server.js';

test(
  'JSON and text replies carry their type and CORS',
  withServer,
  ({ router }) => {
    router.get('/json', (_request, reply) => reply.json(200, { ok: true }));
    router.get('/text', (_request, reply) => reply.text(200, 'plain'));
  },
  async (t, { url }) => {
    const json = await fetch(`${url}/json`);
    t.is(json.headers.get('content-type'), 'application/json; charset=utf-8');
    t.is(json.headers.get('access-control-allow-origin'), '*');
    t.deepEqual(await json.json(), { ok: true });
    const text = await fetch(`${url}/text`);
    t.is(text.headers.get('content-type'), 'text/plain; charset=utf-8');
    t.is(await text.text(), 'plain');
  },
);

test(
  'unknown paths are 404 and wrong methods 405 with Allow, both as JSON errors',
  withServer,
  ({ router }) => {
    router.get('/thing', (_request, reply) => reply.json(200, {}));
    router.post('/thing', (_request, reply) => reply.json(201, {}));
  },
  async (t, { url }) => {
    const missing = await fetch(`${url}/nothing/here`);
    t.is(missing.status, 404);
    t.deepEqual(await missing.json(), { error: 'no such path: /nothing/here' });
    const wrong = await fetch(`${url}/thing`, { method: 'DELETE' });
    t.is(wrong.status, 405);
    t.is(wrong.headers.get('allow'), 'GET, POST');
    t.deepEqual(await wrong.json(), { error: 'method DELETE not allowed on /thing' });
    t.is((await fetch(`${url}/thing`, { method: 'POST' })).status, 201);
  },
);

test(
  'CORS preflight answers 204 with the methods of the path',
  withServer,
  ({ router }) => {
    router.post('/upload', (_request, reply) => reply.json(200, {}));
  },
  async (t, { url }) => {
    const response = await fetch(`${url}/upload`, {
      method: 'OPTIONS',
      headers: { 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
    });
    t.is(response.status, 204);
    t.is(response.headers.get('access-control-allow-origin'), '*');
    t.is(response.headers.get('access-control-allow-methods'), 'POST, OPTIONS');
    t.is(response.headers.get('access-control-allow-headers'), 'content-type');
  },
);

test(
  'bodies are read up to their limit; past it the answer is 413',
  withServer,
  ({ router }) => {
    router.post('/body', (request, reply) => reply.json(200, { bytes: request.body?.length }), { bodyLimit: 1000 });
  },
  async (t, { url }) => {
    const fits = await fetch(`${url}/body`, { method: 'POST', body: 'x'.repeat(1000) });
    t.deepEqual(await fits.json(), { bytes: 1000 });
    const declared = await fetch(`${url}/body`, { method: 'POST', body: 'x'.repeat(1001) });
    t.is(declared.status, 413);
    t.deepEqual(await declared.json(), { error: 'request body larger than 1000 bytes' });
    // Chunked: no Content-Length, so the limit is found while reading.
    const chunked = await postChunked(`${url}/body`, ['x'.repeat(600), 'x'.repeat(600)]);
    t.is(chunked.status, 413);
    t.regex(chunked.body, /request body larger than 1000 bytes/);
  },
);

test(
  'thrown coded errors map to their status; unknown failures are 500 without details',
  withServer,
  ({ router }) => {
    router.get('/conflict', () => {
      throw new OutpostError('ERR_CONFLICT', 'already exists');
    });
    router.get('/later', async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      throw new OutpostError('ERR_UNAVAILABLE', 'pool empty');
    });
    router.get('/bug', () => {
      throw new TypeError('secret internal detail');
    });
  },
  async (t, { url }) => {
    const conflict = await fetch(`${url}/conflict`);
    t.is(conflict.status, 409);
    t.deepEqual(await conflict.json(), { error: 'already exists' });
    const later = await fetch(`${url}/later`);
    t.is(later.status, 503);
    t.deepEqual(await later.json(), { error: 'pool empty' });
    const bug = await fetch(`${url}/bug`);
    t.is(bug.status, 500);
    t.deepEqual(await bug.json(), { error: 'internal error' });
  },
);

test(
  'static files have their type, an ETag, and a cache policy by name',
  withServer,
  async ({ router }) => {
    serveStatic(router, await loadStaticAssets(projectPath('test/fixtures/static')), '/ui');
  },
  async (t, { url }) => {
    const index = await fetch(`${url}/ui/`);
    t.is(index.headers.get('content-type'), 'text/html; charset=utf-8');
    t.is(index.headers.get('cache-control'), 'no-cache');
    t.is(await index.text(), '<!doctype html><title>t</title>');
    const etag = index.headers.get('etag');
    t.truthy(etag);
    const again = await fetch(`${url}/ui/index.html`, { headers: { 'If-None-Match': etag! } });
    t.is(again.status, 304);
    const script = await fetch(`${url}/ui/app-ABCD1234.js`);
    t.is(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
    t.is(script.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    t.is((await fetch(`${url}/ui/style.css`)).headers.get('content-type'), 'text/css; charset=utf-8');
    t.is((await fetch(`${url}/ui/../package.json`)).status, 404);
  },
);

test(
  'server-sent events stream frames and drain() closes the stream',
  withServer,
  ({ router, server }) => {
    router.get('/events', (request, reply) => {
      const stream = new EventStream(request, reply, server);
      stream.send('first line\nsecond line', 'greeting', '1');
    });
  },
  async (t, { url, server }) => {
    const response = await fetch(`${url}/events`);
    t.is(response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    t.is(response.headers.get('cache-control'), 'no-store');
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('second line\n\n')) text += (await reader.read()).value ?? '';
    t.true(text.includes('event: greeting\nid: 1\ndata: first line\ndata: second line\n\n'));
    await server.drain(1000);
    let done = false;
    while (!done) done = (await reader.read()).done;
    t.true(done, 'the stream ends when the server drains');
  },
);

function postChunked(url: string, chunks: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = rawRequest(url, { method: 'POST', headers: { 'Transfer-Encoding': 'chunked' } }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (text: string) => (body += text));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    for (const chunk of chunks) request.write(chunk);
    request.end();
  });
}
