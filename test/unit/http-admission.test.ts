// What happens to a request before its handler (src/http/admission.ts), on a request and a reply that
// record what the front would write: rate limits, the failures allowance and its exception for a
// client that succeeded, the same-origin rule, authentication, and reading the body.
import test from 'ava';
import { z } from 'zod';
import { admit, needsAdmission, run, type Admission, type AnyHandler } from '../../src/http/admission.js';
import type { AuthScheme } from '../../src/http/auth.js';
import { RateLimiter, type RateLimitRule } from '../../src/http/rate-limit.js';
import type { Reply } from '../../src/http/reply.js';
import type { IncomingRequest } from '../../src/http/request.js';
import { OutpostError, toOutpostError } from '../../src/errors.js';

interface Answer {
  status: number;
  /** The refusal's message and headers, for an error answer. */
  error?: string;
  headers?: Readonly<Record<string, string>>;
  close?: boolean;
}

/** A reply that answers once, tells its answer and finish listeners as Reply does, and records the answer. */
class RecordingReply {
  answer: Answer | undefined;
  private readonly answerListeners: ((status: number) => void)[] = [];
  private readonly finishListeners: ((status: number) => void)[] = [];
  gone = false;

  get closed(): boolean {
    return this.gone || this.answer !== undefined;
  }

  get finished(): boolean {
    return this.answer !== undefined;
  }

  onAnswer(listener: (status: number) => void): void {
    this.answerListeners.push(listener);
  }

  onFinish(listener: (status: number) => void): void {
    if (this.answer !== undefined) listener(this.answer.status);
    else this.finishListeners.push(listener);
  }

  send(status: number, extra: Omit<Answer, 'status'> = {}): void {
    if (this.closed) return;
    for (const listener of this.answerListeners) listener(status);
    this.answer = { status, ...extra };
    for (const listener of this.finishListeners) listener(status);
  }

  error(error: unknown, close?: boolean): void {
    const coded = toOutpostError(error);
    this.send(coded.status, { error: coded.message, headers: (error as { headers?: Record<string, string> }).headers ?? {}, close: close ?? false });
  }
}

interface RequestShape {
  method?: string;
  address?: string;
  headers?: Record<string, string>;
  /** What readBody gives: the bytes, or an error it fails with. */
  body?: Buffer | Error;
}

function requestOf({ method = 'POST', address = '192.0.2.1', headers = {}, body }: RequestShape): IncomingRequest {
  const headerMap = new Map(Object.entries(headers));
  const cookies = new Map(
    (headerMap.get('cookie') ?? '')
      .split(';')
      .filter(Boolean)
      .map((pair) => pair.trim().split('=') as [string, string]),
  );
  const request = {
    method,
    path: '/api/thing',
    headers: headerMap,
    params: {},
    query: new URLSearchParams(),
    cookies,
    remoteAddress: address,
    body: undefined as unknown,
    auth: undefined as unknown,
    readLimit: undefined as number | undefined,
    readBody({ limit }: { limit: number }): Promise<Buffer> {
      request.readLimit = limit;
      if (body instanceof Error) return Promise.reject(body);
      return Promise.resolve(body ?? Buffer.alloc(0));
    },
  };
  return request as unknown as IncomingRequest;
}

function admission(parts: Partial<Admission>): Admission {
  const rateLimits = parts.rateLimits ?? [];
  return {
    rateLimits,
    failureRules: parts.failureRules ?? rateLimits.filter((rule) => rule.count === 'failures'),
    sameOrigin: parts.sameOrigin ?? false,
    auth: parts.auth,
    body: parts.body,
  };
}

/** Admits one request; resolves with its answer once one is given (or after the checks settle). */
async function send(rules: Admission, handler: AnyHandler, shape: RequestShape = {}): Promise<{ answer: Answer | undefined; request: IncomingRequest }> {
  const reply = new RecordingReply();
  const request = requestOf(shape);
  admit(rules, handler, request, reply as unknown as Reply);
  for (let turn = 0; turn < 10 && reply.answer === undefined; turn++) await new Promise((resolve) => setImmediate(resolve));
  return { answer: reply.answer, request };
}

const ok = (_request: unknown, reply: Reply): void => (reply as unknown as RecordingReply).send(200);
const tokens: AuthScheme<unknown> = { bearer: (token) => (token === 'right' ? { user: 'op' } : undefined) };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function clock() {
  const at = { now: 1_000_000 };
  return { at, now: () => at.now };
}

test('a route needs admission for any of a rate limit, the same-origin rule, authentication or a body', (t) => {
  t.false(needsAdmission(admission({})));
  t.true(needsAdmission(admission({ rateLimits: [{ limiter: new RateLimiter({ limit: 1, windowMs: 1000 }) }] })));
  t.true(needsAdmission(admission({ sameOrigin: true })));
  t.true(needsAdmission(admission({ auth: tokens })));
  t.true(needsAdmission(admission({ body: { limit: 10, schema: undefined } })));
});

test('a requests rule takes a share of every request and refuses with 429 and Retry-After once none is left', async (t) => {
  const { now } = clock();
  const rules = admission({ rateLimits: [{ limiter: new RateLimiter({ limit: 2, windowMs: 60_000, now }) }] });
  let runs = 0;
  const counted: AnyHandler = (request, reply) => {
    runs++;
    ok(request, reply);
  };
  t.is((await send(rules, counted)).answer?.status, 200);
  t.is((await send(rules, counted)).answer?.status, 200);
  const { answer } = await send(rules, counted);
  t.is(answer?.status, 429);
  t.deepEqual(answer?.headers, { 'Retry-After': '30' });
  t.is(runs, 2, 'the refused request never reaches its handler');
  t.is((await send(rules, counted, { address: '192.0.2.2' })).answer?.status, 200, 'another client has its own allowance');
});

test('a rule keyed otherwise than by address counts by its key', async (t) => {
  const rules = admission({ rateLimits: [{ limiter: new RateLimiter({ limit: 1, windowMs: 60_000 }), key: (request) => request.headers.get('x-key') ?? '' }] });
  t.is((await send(rules, ok, { headers: { 'x-key': 'a' } })).answer?.status, 200);
  t.is((await send(rules, ok, { headers: { 'x-key': 'a' }, address: '192.0.2.9' })).answer?.status, 429);
  t.is((await send(rules, ok, { headers: { 'x-key': 'b' } })).answer?.status, 200);
});

test('a failures rule counts 401 and 403 only, then refuses without checking the credential', async (t) => {
  const { now } = clock();
  let checked = 0;
  const auth: AuthScheme<unknown> = {
    bearer: (token) => {
      checked++;
      return token === 'right' ? { user: 'op' } : undefined;
    },
  };
  const rule: RateLimitRule = { limiter: new RateLimiter({ limit: 2, windowMs: 60_000, now }), count: 'failures' };
  const rules = admission({ rateLimits: [rule], auth });
  const notFound: AnyHandler = (_request, reply) => (reply as unknown as RecordingReply).send(404);
  t.is((await send(rules, notFound, { headers: bearer('right') })).answer?.status, 404, 'a 404 is no failure');
  t.is((await send(rules, ok, { headers: bearer('wrong') })).answer?.status, 401);
  const forbidden: AnyHandler = (_request, reply) => reply.error(new OutpostError('ERR_FORBIDDEN', 'not yours'));
  t.is((await send(rules, forbidden, { headers: bearer('right') })).answer?.status, 403, 'a 403 counts too');
  t.is(checked, 3);
  const { answer } = await send(rules, ok, { headers: bearer('right') });
  t.is(answer?.status, 429);
  t.deepEqual(answer?.headers, { 'Retry-After': '30' });
  t.is(checked, 3, 'a client out of allowance is refused before its credential is checked');
  t.is((await send(rules, ok, { headers: bearer('right'), address: '192.0.2.2' })).answer?.status, 200, 'another client is not');
});

test('a client that succeeded within the window keeps having its credentials checked; a wrong one is answered 429', async (t) => {
  const { now } = clock();
  const rule: RateLimitRule = { limiter: new RateLimiter({ limit: 1, windowMs: 60_000, now }), count: 'failures' };
  const rules = admission({ rateLimits: [rule], auth: tokens });
  t.is((await send(rules, ok, { headers: bearer('right') })).answer?.status, 200);
  t.true(rule.limiter.size === 0 && !rule.limiter.succeededRecently('192.0.2.1'), 'a success is not noted while nobody has failed');
  t.is((await send(rules, ok, { headers: bearer('wrong') })).answer?.status, 401);
  t.is((await send(rules, ok, { headers: bearer('wrong') })).answer?.status, 429, 'out of allowance');
  t.is((await send(rules, ok, { headers: bearer('right'), address: '192.0.2.7' })).answer?.status, 200);
  t.true(rule.limiter.succeededRecently('192.0.2.7'), 'a success is noted once somebody has failed');
  t.is((await send(rules, ok, { headers: bearer('wrong'), address: '192.0.2.7' })).answer?.status, 401);
  t.is((await send(rules, ok, { headers: bearer('right'), address: '192.0.2.7' })).answer?.status, 200, 'out of allowance, but it succeeded lately');
  const { answer } = await send(rules, ok, { headers: bearer('wrong'), address: '192.0.2.7' });
  t.is(answer?.status, 429, 'its wrong credential is answered as the wait it is');
  t.deepEqual(answer?.headers, { 'Retry-After': '60' });
  const denied: AnyHandler = (_request, reply) => reply.error(new OutpostError('ERR_BAD_REQUEST', 'no such thing'));
  t.is((await send(rules, denied, { headers: bearer('right'), address: '192.0.2.7' })).answer?.status, 400, 'other refusals keep their status');
});

test('a login (a success below 400 on a route without credentials) is noted as a success', async (t) => {
  const { now } = clock();
  const rule: RateLimitRule = { limiter: new RateLimiter({ limit: 1, windowMs: 60_000, now }), count: 'failures' };
  const rules = admission({ rateLimits: [rule] });
  const login: AnyHandler = (request, reply) => (reply as unknown as RecordingReply).send(request.headers.get('x-password') === 'right' ? 204 : 401);
  t.is((await send(rules, login, { headers: { 'x-password': 'wrong' } })).answer?.status, 401);
  t.is((await send(rules, login, { headers: { 'x-password': 'right' }, address: '192.0.2.3' })).answer?.status, 204);
  t.true(rule.limiter.succeededRecently('192.0.2.3'));
  t.is((await send(rules, login, { headers: { 'x-password': 'wrong' }, address: '192.0.2.4' })).answer?.status, 401);
  t.false(rule.limiter.succeededRecently('192.0.2.4'), 'a refusal is no success');
});

test('a refusal that is no guess takes nothing from the allowance', async (t) => {
  const rule: RateLimitRule = {
    limiter: new RateLimiter({ limit: 1, windowMs: 60_000 }),
    count: 'failures',
    notAGuess: (request) => request.headers.get('authorization') === 'Bearer retired',
  };
  const rules = admission({ rateLimits: [rule], auth: tokens });
  for (let round = 0; round < 3; round++) t.is((await send(rules, ok, { headers: bearer('retired') })).answer?.status, 401);
  t.is((await send(rules, ok, { headers: bearer('wrong') })).answer?.status, 401);
  t.is((await send(rules, ok, { headers: bearer('wrong') })).answer?.status, 429);
});

test('a client out of its failures allowance is reported once per spell', async (t) => {
  const reported: [string, number][] = [];
  const rule: RateLimitRule = {
    limiter: new RateLimiter({ limit: 1, windowMs: 60_000 }),
    count: 'failures',
    onExhausted: (request, wait) => reported.push([request.remoteAddress, wait]),
  };
  const rules = admission({ rateLimits: [rule], auth: tokens });
  await send(rules, ok, { headers: bearer('wrong') });
  t.deepEqual(reported, []);
  for (let round = 0; round < 3; round++) t.is((await send(rules, ok, { headers: bearer('wrong') })).answer?.status, 429);
  t.deepEqual(reported, [['192.0.2.1', 60]]);
});

test('guesses in flight at once hold their shares; answers that are no failure give them back', async (t) => {
  const rule: RateLimitRule = { limiter: new RateLimiter({ limit: 2, windowMs: 60_000 }), count: 'failures' };
  const pending: ((principal: unknown) => void)[] = [];
  const auth: AuthScheme<unknown> = { bearer: () => new Promise((resolve) => pending.push(resolve)) };
  const rules = admission({ rateLimits: [rule], auth });
  // Someone else failed first, so that the rule looks at clients at all.
  await send(rules, ok, { headers: bearer('x'), address: '198.51.100.1' }).then(() => pending.splice(0).forEach((resolve) => resolve(undefined)));
  const replies = [new RecordingReply(), new RecordingReply()];
  for (const reply of replies) admit(rules, ok, requestOf({ headers: bearer('guess') }), reply as unknown as Reply);
  t.is(pending.length, 2);
  t.is((await send(rules, ok, { headers: bearer('guess') })).answer?.status, 429, 'the shares are held while the checks are in flight');
  for (const resolve of pending.splice(0)) resolve({ user: 'op' });
  await new Promise((resolve) => setImmediate(resolve));
  t.deepEqual(
    replies.map((reply) => reply.answer?.status),
    [200, 200],
  );
  t.is(rule.limiter.retryAfter('192.0.2.1'), 0, 'successes gave the shares back');
  const failing = [new RecordingReply(), new RecordingReply()];
  for (const reply of failing) admit(rules, ok, requestOf({ headers: bearer('guess'), address: '192.0.2.5' }), reply as unknown as Reply);
  for (const resolve of pending.splice(0)) resolve(undefined);
  await new Promise((resolve) => setImmediate(resolve));
  t.deepEqual(
    failing.map((reply) => reply.answer?.status),
    [401, 401],
  );
  t.true(rule.limiter.retryAfter('192.0.2.5') > 0, 'failures keep them');
});

test('a request refused at once by a failures rule holds nothing', async (t) => {
  const rule: RateLimitRule = { limiter: new RateLimiter({ limit: 1, windowMs: 60_000 }), count: 'failures' };
  const rules = admission({ rateLimits: [rule], auth: tokens });
  t.is((await send(rules, ok, { headers: bearer('wrong') })).answer?.status, 401);
  t.is(rule.limiter.retryAfter('192.0.2.1'), 60);
});

test('the same-origin rule refuses a cross-origin change with 403, and a session is held to it without the rule', async (t) => {
  const cross = { 'sec-fetch-site': 'cross-site' };
  t.is((await send(admission({ sameOrigin: true }), ok, { headers: cross })).answer?.status, 403);
  t.is((await send(admission({ sameOrigin: true }), ok, { headers: { 'sec-fetch-site': 'same-origin' } })).answer?.status, 200);
  const auth: AuthScheme<unknown> = { bearer: () => 'script', session: { cookie: 'sid', check: (value) => (value === 'good' ? 'panel' : undefined) } };
  const session = await send(admission({ auth }), ok, { headers: { cookie: 'sid=good', 'sec-fetch-site': 'same-origin' } });
  t.is(session.answer?.status, 200);
  t.is(session.request.auth, 'panel', 'the principal reaches the handler');
  t.is((await send(admission({ auth }), ok, { headers: { cookie: 'sid=good', ...cross } })).answer?.status, 403);
  const script = await send(admission({ auth }), ok, { headers: { ...bearer('any'), ...cross } });
  t.is(script.answer?.status, 200, 'a bearer token rides on no request another site makes');
  t.is(script.request.auth, 'script');
});

test('authentication refused is 401, and a principal found later reaches the handler', async (t) => {
  t.is((await send(admission({ auth: tokens }), ok)).answer?.status, 401);
  const later: AuthScheme<unknown> = { bearer: (token) => Promise.resolve(token === 'right' ? 'later' : undefined) };
  const { answer, request } = await send(admission({ auth: later }), ok, { headers: bearer('right') });
  t.is(answer?.status, 200);
  t.is(request.auth, 'later');
  t.is((await send(admission({ auth: later }), ok, { headers: bearer('wrong') })).answer?.status, 401);
});

test('a body is read within its limit and validated against its schema before the handler', async (t) => {
  const schema = z.object({ name: z.string() });
  let seen: unknown;
  const keep: AnyHandler = (request, reply) => {
    seen = request.body;
    ok(request, reply);
  };
  const json = { 'content-type': 'application/json', 'content-length': '15' };
  const read = await send(admission({ body: { limit: 100, schema } }), keep, { headers: json, body: Buffer.from('{"name":"box"}') });
  t.is(read.answer?.status, 200);
  t.deepEqual(seen, { name: 'box' });
  t.is((read.request as unknown as { readLimit: number }).readLimit, 100);
  t.is((await send(admission({ body: { limit: 100, schema } }), keep, { headers: { 'content-length': '15' }, body: Buffer.from('{}') })).answer?.status, 415);
  const invalid = await send(admission({ body: { limit: 100, schema } }), keep, { headers: json, body: Buffer.from('{"name":1}') });
  t.is(invalid.answer?.status, 400);
  t.false(invalid.answer?.close, 'a body read to its end leaves the connection open');
  await send(admission({ body: { limit: 100, schema: undefined } }), keep, { headers: { 'content-length': '3' }, body: Buffer.from('raw') });
  t.deepEqual(seen, Buffer.from('raw'), 'without a schema the handler gets the bytes');
});

test('a request refused before its body was read closes its connection, unless it declared no body', async (t) => {
  const rules = admission({ auth: tokens, body: { limit: 100, schema: undefined } });
  for (const headers of [{ 'content-length': '5' }, { 'transfer-encoding': 'chunked' }] as Record<string, string>[]) {
    const { answer } = await send(rules, ok, { headers, body: Buffer.from('bytes') });
    t.is(answer?.status, 401);
    t.true(answer?.close, JSON.stringify(headers));
  }
  for (const headers of [{}, { 'content-length': '0' }] as Record<string, string>[])
    t.false((await send(rules, ok, { headers })).answer?.close, JSON.stringify(headers));
  const tooLarge = await send(admission({ body: { limit: 1, schema: undefined } }), ok, {
    headers: { 'content-length': '5' },
    body: new OutpostError('ERR_BODY_TOO_LARGE', 'too large'),
  });
  t.is(tooLarge.answer?.status, 413);
  t.true(tooLarge.answer?.close);
  const synchronous = await send(admission({ sameOrigin: true }), ok, { headers: { 'sec-fetch-site': 'cross-site', 'content-length': '5' } });
  t.true(synchronous.answer?.close, 'a refusal given at once closes it too');
});

test('a request whose client left while its body was read reaches no handler', async (t) => {
  let runs = 0;
  const reply = new RecordingReply();
  let finishRead: (bytes: Buffer) => void = () => {};
  const request = requestOf({ headers: { 'content-length': '3' } });
  (request as unknown as { readBody: () => Promise<Buffer> }).readBody = () => new Promise((resolve) => (finishRead = resolve));
  admit(
    admission({ body: { limit: 10, schema: undefined } }),
    () => {
      runs++;
    },
    request,
    reply as unknown as Reply,
  );
  reply.gone = true;
  finishRead(Buffer.from('abc'));
  await new Promise((resolve) => setImmediate(resolve));
  t.is(runs, 0);
});

test('whatever a handler throws, at once or later, becomes its error answer', async (t) => {
  const rules = admission({ sameOrigin: true });
  t.is((await send(rules, () => Promise.reject(new OutpostError('ERR_FORBIDDEN', 'later')))).answer?.status, 403);
  const thrown = await send(rules, () => {
    throw new OutpostError('ERR_BAD_REQUEST', 'at once');
  });
  t.is(thrown.answer?.status, 400);
  t.is(thrown.answer?.error, 'at once');
});

test('a failure answered later takes one share, not two', async (t) => {
  const rule: RateLimitRule = { limiter: new RateLimiter({ limit: 2, windowMs: 60_000 }), count: 'failures' };
  const later: AuthScheme<unknown> = { bearer: () => Promise.resolve(undefined) };
  const rules = admission({ rateLimits: [rule], auth: later });
  t.is((await send(rules, ok, { headers: bearer('wrong') })).answer?.status, 401);
  t.is(rule.limiter.retryAfter('192.0.2.1'), 0, 'one of two shares is left');
});

test('a refusal that is no guess, answered later, gives its held share back', async (t) => {
  const rule: RateLimitRule = { limiter: new RateLimiter({ limit: 1, windowMs: 60_000 }), count: 'failures', notAGuess: () => true };
  const later: AuthScheme<unknown> = { bearer: () => Promise.resolve(undefined) };
  const rules = admission({ rateLimits: [rule], auth: later });
  // Another client's failure makes the rule look at clients.
  rule.limiter.take('198.51.100.1');
  for (let round = 0; round < 3; round++) t.is((await send(rules, ok, { headers: bearer('retired') })).answer?.status, 401);
  t.is(rule.limiter.retryAfter('192.0.2.1'), 0);
});

test('out of allowance, a credential refused by the handler is answered 429; its other errors keep their status', async (t) => {
  const rule: RateLimitRule = { limiter: new RateLimiter({ limit: 1, windowMs: 60_000 }), count: 'failures' };
  const rules = admission({ rateLimits: [rule], auth: tokens });
  t.is((await send(rules, ok, { headers: bearer('wrong') })).answer?.status, 401);
  t.is((await send(rules, ok, { headers: bearer('right') })).answer?.status, 429);
  rule.limiter.succeeded('192.0.2.1');
  const throwing =
    (code: 'ERR_FORBIDDEN' | 'ERR_UNAUTHORIZED' | 'ERR_BAD_REQUEST'): AnyHandler =>
    () => {
      throw new OutpostError(code, 'refused by the handler');
    };
  t.is((await send(rules, throwing('ERR_FORBIDDEN'), { headers: bearer('right') })).answer?.status, 429);
  t.is((await send(rules, throwing('ERR_UNAUTHORIZED'), { headers: bearer('right') })).answer?.status, 429);
  t.is((await send(rules, throwing('ERR_BAD_REQUEST'), { headers: bearer('right') })).answer?.status, 400);
  t.is((await send(rules, () => Promise.reject(new Error('boom')), { headers: bearer('right') })).answer?.status, 500);
});

test('a request with accepted credentials is a success whatever its handler answers but 401 and 403; without credentials only below 400', async (t) => {
  const rule: RateLimitRule = { limiter: new RateLimiter({ limit: 5, windowMs: 60_000 }), count: 'failures' };
  rule.limiter.take('198.51.100.1');
  const answering =
    (status: number): AnyHandler =>
    (_request, reply) =>
      (reply as unknown as RecordingReply).send(status);
  await send(admission({ rateLimits: [rule], auth: tokens }), answering(404), { headers: bearer('right'), address: '192.0.2.10' });
  t.true(rule.limiter.succeededRecently('192.0.2.10'));
  await send(admission({ rateLimits: [rule] }), answering(400), { address: '192.0.2.11' });
  t.false(rule.limiter.succeededRecently('192.0.2.11'));
  await send(admission({ rateLimits: [rule] }), answering(399), { address: '192.0.2.12' });
  t.true(rule.limiter.succeededRecently('192.0.2.12'));
});

test('run answers what a handler throws, and leaves a handler that answers later without a promise alone', async (t) => {
  const thrown = new RecordingReply();
  run(
    () => {
      throw new OutpostError('ERR_BAD_REQUEST', 'at once');
    },
    requestOf({}),
    thrown as unknown as Reply,
  );
  t.is(thrown.answer?.status, 400);
  const later = new RecordingReply();
  run((_request, reply) => void setTimeout(() => (reply as unknown as RecordingReply).send(204), 5), requestOf({}), later as unknown as Reply);
  t.is(later.answer, undefined);
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.is(later.answer?.status, 204);
});
