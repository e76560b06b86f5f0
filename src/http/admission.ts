// What happens to a request between its arrival and its handler, for a route that asked for more than
// the bare handler: rate limits, the same-origin rule, authentication, and reading and validating its
// body. The order is the cheapest refusal first: a client out of allowance is refused before its
// credentials are checked (so guessing costs it the allowance, not us the check), and a body is
// only parsed once its sender is known.
import type { z } from 'zod';
import { authenticate, type Authenticated, type AuthScheme } from './auth.js';
import { assertJsonContentType, parseJsonBody } from './json-body.js';
import { clientAddressKey, rateLimited, type RateLimitRule } from './rate-limit.js';
import type { Reply } from './reply.js';
import type { IncomingRequest, RequestInfo } from './request.js';
import { assertSameOrigin } from './same-origin.js';

/** A handler as the router stores it, whatever the body and principal types its route declared. */
export type AnyHandler = (request: RequestInfo<unknown, unknown>, reply: Reply) => void | Promise<void>;

export interface Admission {
  rateLimits: readonly RateLimitRule[];
  /** Those of `rateLimits` that count failures only. */
  failureRules: readonly RateLimitRule[];
  /** Refuse state-changing requests from another origin (403). */
  sameOrigin: boolean;
  auth: AuthScheme<unknown> | undefined;
  /** Read the body (at most `limit` bytes, else 413) and, with a schema, parse it as JSON and validate it. */
  body: { limit: number; schema: z.ZodType | undefined } | undefined;
}

/** Whether a route needs anything before its handler; routes that do not skip this file entirely. */
export function needsAdmission(admission: Admission): boolean {
  return admission.rateLimits.length > 0 || admission.sameOrigin || admission.auth !== undefined || admission.body !== undefined;
}

/**
 * Runs the checks of `admission`, then `handler` with the request's body and principal filled in.
 * What can be decided at once is (a token looked up in memory): the handler then runs in this call,
 * with no promise made for the request.
 */
export function admit(admission: Admission, handler: AnyHandler, request: IncomingRequest, reply: Reply): void {
  let body: Promise<Buffer> | undefined;
  try {
    for (const rule of admission.rateLimits) checkAllowance(rule, request);
    if (admission.sameOrigin) assertSameOrigin(request);
    if (admission.body !== undefined) {
      if (admission.body.schema !== undefined) assertJsonContentType(request.headers.get('content-type'));
      // Reading starts now, before any await: uWS drops body chunks that arrive while nothing reads them.
      body = request.readBody({ limit: admission.body.limit });
      // A refusal from the checks below may come first; the body's own failure is then moot.
      body.catch(() => {});
    }
  } catch (error) {
    refuse(reply, request, error, false);
    return;
  }
  if (admission.failureRules.length === 0) {
    proceed(admission, handler, request, reply, body);
    return;
  }
  // A 401 or 403 given within this call is counted as it is written: uWS allows reading the address
  // until then and not after. An answer still to come holds its share meanwhile.
  let admitting = true;
  reply.onAnswer((status) => {
    if (admitting && isFailure(status)) for (const rule of admission.failureRules) rule.limiter.take(limitKey(rule, request));
  });
  proceed(admission, handler, request, reply, body);
  admitting = false;
  if (!reply.finished) for (const rule of admission.failureRules) holdUntilAnswered(rule, request, reply);
}

/** Authenticates, then runs the handler: at once when nothing is pending, else when it has settled. */
function proceed(admission: Admission, handler: AnyHandler, request: IncomingRequest, reply: Reply, body: Promise<Buffer> | undefined): void {
  let authenticated: Authenticated<unknown> | Promise<Authenticated<unknown>> | undefined;
  try {
    authenticated = admission.auth === undefined ? undefined : authenticate(admission.auth, request);
    if (authenticated !== undefined && !(authenticated instanceof Promise) && body === undefined) accept(request, authenticated);
  } catch (error) {
    refuse(reply, request, error, false);
    return;
  }
  if (authenticated instanceof Promise || body !== undefined) void complete(admission, handler, request, reply, authenticated, body);
  else run(handler, request, reply);
}

async function complete(admission: Admission, handler: AnyHandler, request: IncomingRequest, reply: Reply, authenticated: Authenticated<unknown> | Promise<Authenticated<unknown>> | undefined, body: Promise<Buffer> | undefined): Promise<void> {
  let bodyRead = false;
  try {
    if (authenticated !== undefined) accept(request, await authenticated);
    if (body !== undefined && admission.body !== undefined) {
      const bytes = await body;
      bodyRead = true;
      request.body = admission.body.schema === undefined ? bytes : parseJsonBody(bytes, admission.body.schema);
    }
  } catch (error) {
    refuse(reply, request, error, bodyRead);
    return;
  }
  if (reply.closed) return;
  run(handler, request, reply);
}

/** Records who made the request; a cookie rides along on requests other sites make, a bearer token never does. */
function accept(request: IncomingRequest, { principal, by }: Authenticated<unknown>): void {
  if (by === 'session') assertSameOrigin(request);
  request.auth = principal;
}

/**
 * A request refused before its handler. When the refusal comes before its body was read to the end,
 * the connection is closed: the rest of the body would otherwise have to be received for nothing.
 */
function refuse(reply: Reply, request: IncomingRequest, error: unknown, bodyRead: boolean): void {
  reply.error(error, !bodyRead && declaresBody(request) ? true : undefined);
}

function declaresBody(request: RequestInfo<unknown, unknown>): boolean {
  const length = request.headers.get('content-length');
  return request.headers.has('transfer-encoding') || (length !== undefined && length !== '0');
}

/**
 * Refuses a client with none of the rule's allowance left. A `requests` rule takes its share now; a
 * `failures` rule only looks, and skips even the client's address while nobody has failed (an
 * unknown client has its whole allowance).
 */
function checkAllowance(rule: RateLimitRule, request: IncomingRequest): void {
  if (rule.count === 'failures' && rule.limiter.size === 0) return;
  const key = limitKey(rule, request);
  const wait = rule.count === 'failures' ? rule.limiter.retryAfter(key) : rule.limiter.take(key);
  if (wait > 0) throw rateLimited(wait);
}

/**
 * Holds a share of a `failures` rule's allowance while the answer is pending, and gives it back unless
 * the answer is a 401 or 403: guesses sent all at once cannot slip past the count while their checks
 * are in flight.
 */
function holdUntilAnswered(rule: RateLimitRule, request: IncomingRequest, reply: Reply): void {
  const key = limitKey(rule, request);
  rule.limiter.take(key);
  reply.onFinish((status) => {
    if (!isFailure(status)) rule.limiter.refund(key);
  });
}

function limitKey(rule: RateLimitRule, request: IncomingRequest): string {
  return (rule.key ?? clientAddressKey)(request);
}

function isFailure(status: number): boolean {
  return status === 401 || status === 403;
}

/** Calls a handler; whatever it throws, now or later, becomes the error answer. */
export function run(handler: AnyHandler, request: RequestInfo<unknown, unknown>, reply: Reply): void {
  try {
    const result = handler(request, reply);
    if (result instanceof Promise) result.catch((error: unknown) => reply.error(error));
  } catch (error) {
    reply.error(error);
  }
}
