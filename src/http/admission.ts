// What happens to a request between its arrival and its handler, for a route that asked for more than
// the bare handler: rate limits, the same-origin rule, authentication, and reading and validating its
// body. The order is the cheapest refusal first, and a body is only parsed once its sender is known.
// A client out of its `failures` allowance is refused (429) without its credentials being checked, so
// guessing goes no faster than the allowance comes back; a client that succeeded within the rule's
// window is the exception: its credentials are still checked (valid ones pass, wrong ones get 429), so
// an operator behind the same NAT or proxy as a guesser keeps working.
import type { z } from 'zod';
import { OutpostError } from '../errors.js';
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
  /** Seconds until the client may fail again; while above 0, a credential refusal is answered 429. */
  let exhausted = 0;
  const fail: Fail = (error, close) => reply.error(exhausted > 0 && isCredentialRefusal(error) ? rateLimited(exhausted) : error, close);
  try {
    for (const rule of admission.rateLimits) exhausted = Math.max(exhausted, checkAllowance(rule, request));
    if (admission.sameOrigin) assertSameOrigin(request);
    if (admission.body !== undefined) {
      if (admission.body.schema !== undefined) assertJsonContentType(request.headers.get('content-type'));
      // Reading starts now, before any await: uWS drops body chunks that arrive while nothing reads them.
      body = request.readBody({ limit: admission.body.limit });
      // A refusal from the checks below may come first; the body's own failure is then moot.
      body.catch(() => {});
    }
  } catch (error) {
    refuse(fail, request, error, false);
    return;
  }
  if (admission.failureRules.length === 0) {
    proceed(admission, handler, request, reply, fail, body);
    return;
  }
  // A 401 or 403 given within this call is counted as it is written: uWS allows reading the address
  // until then and not after. An answer still to come holds its share meanwhile. A success is noted
  // whenever it is answered, while anybody has failed (before that, nobody needs the exception).
  let admitting = true;
  reply.onAnswer((status) => {
    if (admitting && isFailure(status))
      for (const rule of admission.failureRules) if (rule.notAGuess?.(request) !== true) rule.limiter.take(limitKey(rule, request));
    if (isSuccess(status, request)) for (const rule of admission.failureRules) if (rule.limiter.size > 0) rule.limiter.succeeded(limitKey(rule, request));
  });
  proceed(admission, handler, request, reply, fail, body);
  admitting = false;
  if (!reply.finished) for (const rule of admission.failureRules) holdUntilAnswered(rule, request, reply);
}

/** Authenticates, then runs the handler: at once when nothing is pending, else when it has settled. */
function proceed(admission: Admission, handler: AnyHandler, request: IncomingRequest, reply: Reply, fail: Fail, body: Promise<Buffer> | undefined): void {
  let authenticated: Authenticated<unknown> | Promise<Authenticated<unknown>> | undefined;
  try {
    authenticated = admission.auth === undefined ? undefined : authenticate(admission.auth, request);
    if (authenticated !== undefined && !(authenticated instanceof Promise) && body === undefined) accept(request, authenticated);
  } catch (error) {
    refuse(fail, request, error, false);
    return;
  }
  if (authenticated instanceof Promise || body !== undefined) void complete(admission, handler, request, reply, fail, authenticated, body);
  else run(handler, request, reply, fail);
}

async function complete(
  admission: Admission,
  handler: AnyHandler,
  request: IncomingRequest,
  reply: Reply,
  fail: Fail,
  authenticated: Authenticated<unknown> | Promise<Authenticated<unknown>> | undefined,
  body: Promise<Buffer> | undefined,
): Promise<void> {
  let bodyRead = false;
  try {
    if (authenticated !== undefined) accept(request, await authenticated);
    if (body !== undefined && admission.body !== undefined) {
      const bytes = await body;
      bodyRead = true;
      request.body = admission.body.schema === undefined ? bytes : parseJsonBody(bytes, admission.body.schema);
    }
  } catch (error) {
    refuse(fail, request, error, bodyRead);
    return;
  }
  if (reply.closed) return;
  run(handler, request, reply, fail);
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
function refuse(fail: Fail, request: IncomingRequest, error: unknown, bodyRead: boolean): void {
  fail(error, !bodyRead && declaresBody(request) ? true : undefined);
}

function declaresBody(request: RequestInfo<unknown, unknown>): boolean {
  const length = request.headers.get('content-length');
  return request.headers.has('transfer-encoding') || (length !== undefined && length !== '0');
}

/**
 * A `requests` rule takes the request's share now, and refuses a client with none left. A `failures`
 * rule only looks (skipping even the client's address while nobody has failed): it refuses a client
 * with none left unless that client succeeded within the window, and returns the seconds until the
 * client may fail again, 0 while it has allowance left.
 */
function checkAllowance(rule: RateLimitRule, request: IncomingRequest): number {
  if (rule.count === 'failures') {
    if (rule.limiter.size === 0) return 0;
    const key = limitKey(rule, request);
    const wait = rule.limiter.retryAfter(key);
    if (wait === 0) return 0;
    if (rule.limiter.firstTimeOut(key)) rule.onExhausted?.(request, wait);
    if (!rule.limiter.succeededRecently(key)) throw rateLimited(wait);
    return wait;
  }
  const wait = rule.limiter.take(limitKey(rule, request));
  if (wait > 0) throw rateLimited(wait);
  return 0;
}

/**
 * How a refused request is answered: `reply.error`, except that a credential refused (401, 403) to a
 * client out of its failures allowance becomes the 429 that tells it to wait.
 */
type Fail = (error: unknown, closeConnection?: boolean) => void;

function isCredentialRefusal(error: unknown): boolean {
  return error instanceof OutpostError && (error.code === 'ERR_UNAUTHORIZED' || error.code === 'ERR_FORBIDDEN');
}

/**
 * Holds a share of a `failures` rule's allowance while the answer is pending, and gives it back unless
 * the answer is a 401 or 403: guesses sent all at once cannot slip past the count while their checks
 * are in flight.
 */
function holdUntilAnswered(rule: RateLimitRule, request: IncomingRequest, reply: Reply): void {
  const key = limitKey(rule, request);
  // A client out of allowance holds nothing, and so has nothing to give back.
  if (rule.limiter.take(key) > 0) return;
  reply.onFinish((status) => {
    if (!isFailure(status) || rule.notAGuess?.(request) === true) rule.limiter.refund(key);
  });
}

function limitKey(rule: RateLimitRule, request: IncomingRequest): string {
  return (rule.key ?? clientAddressKey)(request);
}

function isFailure(status: number): boolean {
  return status === 401 || status === 403;
}

/** A request whose credentials were accepted (whatever its handler answered), or one answered below 400 on a route without them (a login). */
function isSuccess(status: number, request: IncomingRequest): boolean {
  return status < 400 || (request.auth !== undefined && !isFailure(status));
}

/** Calls a handler; whatever it throws, now or later, becomes the error answer. */
export function run(handler: AnyHandler, request: RequestInfo<unknown, unknown>, reply: Reply, fail: Fail = (error) => reply.error(error)): void {
  try {
    const result = handler(request, reply);
    if (result instanceof Promise) result.catch((error: unknown) => fail(error));
  } catch (error) {
    fail(error);
  }
}
