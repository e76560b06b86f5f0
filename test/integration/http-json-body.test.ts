import { isIP } from 'node:net';
import test from 'ava';
import { z } from 'zod';
import { defaultBodyLimit } from '../../src/http/body.js';
import { withServer } from '../helpers/with-server.js';

const probeSchema = z.object({
  target: z
    .string()
    .refine((value) => isIP(value) !== 0 || /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i.test(value), { message: 'must be an IPv4 or IPv6 address or a hostname' }),
  count: z.number().int().min(1).max(10),
  note: z.string().optional(),
});

const json = (body: string, contentType = 'application/json') => ({ method: 'POST', headers: { 'Content-Type': contentType }, body });

test(
  'a JSON route hands its handler the validated, typed value',
  withServer,
  ({ router }) => {
    router.post(
      '/probe',
      (request, reply) => {
        // Typed from the schema: a string and a number, with no cast.
        const { target, count } = request.body;
        // @ts-expect-error the schema has no such field, so the body type has none either
        void request.body.port;
        reply.json(200, { target: target.toUpperCase(), doubled: count * 2 });
      },
      { json: probeSchema },
    );
  },
  async (t, { url }) => {
    const response = await fetch(`${url}/probe`, json('{"target":"example.org","count":3}'));
    t.is(response.status, 200);
    t.deepEqual(await response.json(), { target: 'EXAMPLE.ORG', doubled: 6 });
    const withCharset = await fetch(`${url}/probe`, json('{"target":"::1","count":1}', 'application/json; charset=UTF-8'));
    t.is(withCharset.status, 200);
  },
);

test(
  'a body that is not application/json is 415 before it is read',
  withServer,
  ({ router }) => {
    router.post('/probe', (_request, reply) => reply.json(200, {}), { json: probeSchema });
  },
  async (t, { url }) => {
    const body = '{"target":"example.org","count":3}';
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'application/jsonx']) {
      const response = await fetch(`${url}/probe`, json(body, contentType));
      t.is(response.status, 415, contentType);
      t.deepEqual(await response.json(), { error: `the request body must be application/json (UTF-8), not ${contentType}` });
    }
    // fetch labels a string body text/plain; a Blob without a type goes untyped.
    const untyped = await fetch(`${url}/probe`, { method: 'POST', body: new Blob([body]) });
    t.is(untyped.status, 415);
    t.deepEqual(await untyped.json(), { error: 'the request body must be application/json (UTF-8), not untyped' });
  },
);

test(
  'malformed JSON and values the schema refuses are 400 naming the field and the rule',
  withServer,
  ({ router }) => {
    router.post('/probe', (_request, reply) => reply.json(200, {}), { json: probeSchema });
  },
  async (t, { url }) => {
    const cases: [string, string][] = [
      ['{"target":', 'the request body is not valid JSON'],
      ['', 'the request body is not valid JSON'],
      ['[1,2]', 'the request body must be an object'],
      ['{"target":"not a host!","count":3}', 'target must be an IPv4 or IPv6 address or a hostname'],
      ['{"target":"example.org","count":0}', 'count must be at least 1'],
      ['{"count":2.5,"target":7}', 'target must be a string; count must be an integer'],
    ];
    for (const [body, error] of cases) {
      const response = await fetch(`${url}/probe`, json(body));
      t.is(response.status, 400, body);
      t.deepEqual(await response.json(), { error }, body);
    }
  },
);

test(
  'JSON bodies are limited to 64 KiB unless the route says otherwise',
  withServer,
  ({ router }) => {
    router.post('/default', (request, reply) => reply.json(200, { length: request.body.note?.length }), { json: probeSchema });
    router.put('/small', (request, reply) => reply.json(200, request.body), { json: probeSchema, bodyLimit: 64 });
  },
  async (t, { url }) => {
    t.is(defaultBodyLimit, 64 * 1024);
    const padded = (size: number) => {
      const empty = '{"target":"a","count":1,"note":""}';
      return `{"target":"a","count":1,"note":"${'x'.repeat(size - empty.length)}"}`;
    };
    const fits = await fetch(`${url}/default`, json(padded(defaultBodyLimit)));
    t.is(fits.status, 200);
    t.deepEqual(await fits.json(), { length: defaultBodyLimit - 34 });
    const tooLarge = await fetch(`${url}/default`, json(padded(defaultBodyLimit + 1)));
    t.is(tooLarge.status, 413);
    t.deepEqual(await tooLarge.json(), { error: `request body larger than ${defaultBodyLimit} bytes` });
    const small = await fetch(`${url}/small`, { ...json(padded(65)), method: 'PUT' });
    t.is(small.status, 413);
    t.deepEqual(await small.json(), { error: 'request body larger than 64 bytes' });
    t.is((await fetch(`${url}/small`, { ...json(padded(64)), method: 'PUT' })).status, 200);
  },
);
