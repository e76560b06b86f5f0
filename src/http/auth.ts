// Authentication of a route group: a bearer token (`Authorization: Bearer ...`, for scripts and
// agents), a session cookie (for the browser panel), or either. The site gives the checks (compare
// with `safeEqual` from src/crypto/constant-time.ts); this file only finds the credential and turns a
// refusal into 401.
import { HttpRefusal } from './refusal.js';
import type { Headers } from './reply.js';
import type { RequestInfo } from './request.js';

/** A site's verdict on a credential: who it belongs to, or undefined when it is not valid. */
export type CredentialCheck<Principal> = (credential: string, request: RequestInfo<unknown, unknown>) => Principal | undefined | Promise<Principal | undefined>;

export interface AuthScheme<Principal> {
  /** Accept `Authorization: Bearer <token>`, checked by this function. */
  bearer?: CredentialCheck<Principal>;
  /** Accept the session cookie `cookie`, checked by `check`. State-changing requests must then be same-origin (403). */
  session?: { cookie: string; check: CredentialCheck<Principal> };
}

/** A 401, with the `WWW-Authenticate` challenge for bearer tokens (RFC 6750 §3). */
function refusal(message: string, headers: Headers): HttpRefusal {
  return new HttpRefusal('ERR_UNAUTHORIZED', message, headers);
}

export interface Authenticated<Principal> {
  principal: Principal;
  /** How the request proved itself; a session is held to the same-origin rule. */
  by: 'bearer' | 'session';
}

/**
 * Who made the request under `scheme`; a 401 HttpRefusal when no valid credential came. A request
 * with an Authorization header is judged by it alone (a wrong token is not rescued by a cookie);
 * otherwise the session cookie counts. The verdict is given at once when the site's check answers at
 * once (a token looked up in memory), so a request needs no promise to get past it.
 */
export function authenticate<Principal>(
  scheme: AuthScheme<Principal>,
  request: RequestInfo<unknown, unknown>,
): Authenticated<Principal> | Promise<Authenticated<Principal>> {
  const challenge: Headers = scheme.bearer === undefined ? {} : { 'WWW-Authenticate': 'Bearer' };
  const authorization = request.headers.get('authorization');
  if (scheme.bearer !== undefined && authorization !== undefined) {
    const token = /^Bearer +(\S+) *$/i.exec(authorization)?.[1];
    if (token === undefined) throw refusal('the Authorization header must be "Bearer <token>"', { 'WWW-Authenticate': 'Bearer error="invalid_request"' });
    return settled(scheme.bearer(token, request), (principal) => {
      if (principal === undefined) throw refusal('invalid token', { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
      return { principal, by: 'bearer' };
    });
  }
  const session = scheme.session;
  const cookie = session === undefined ? undefined : request.cookies.get(session.cookie);
  if (session !== undefined && cookie !== undefined && cookie !== '') {
    return settled(session.check(cookie, request), (principal) => {
      if (principal === undefined) throw refusal('session expired or not valid; log in again', challenge);
      return { principal, by: 'session' };
    });
  }
  throw refusal('authentication required', challenge);
}

/** `then` for a value that may or may not be a promise: at once when it is not. */
function settled<Value, Result>(value: Value | Promise<Value>, then: (value: Value) => Result): Result | Promise<Result> {
  return value instanceof Promise ? value.then(then) : then(value);
}
