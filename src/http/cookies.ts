// Cookies for the routes that keep a browser session (the cert role's admin panel). Parsing and
// serialising go through jshttp's `cookie`, which validates names, values and attributes against
// RFC 6265; the defaults here are the safe ones for a session: HttpOnly, SameSite=Strict, Secure, Path=/.
import { parseCookie, stringifySetCookie } from 'cookie';

export interface CookieOptions {
  /** Seconds until the browser forgets the cookie; leave out for a cookie that ends with the browser session. */
  maxAge?: number;
  /** Path the cookie is sent for; `/` by default. */
  path?: string;
  /** Hidden from page scripts; true by default. */
  httpOnly?: boolean;
  /** Sent on which cross-site requests; `strict` (never) by default. */
  sameSite?: 'strict' | 'lax' | 'none';
  /** Sent over HTTPS only (browsers also accept it from http://localhost); true by default. */
  secure?: boolean;
}

/** The cookies of a `Cookie` header by name; a name sent twice keeps its first value (RFC 6265 §5.4 order). */
export function parseCookies(header: string | undefined): ReadonlyMap<string, string> {
  const cookies = new Map<string, string>();
  if (header === undefined) return cookies;
  for (const [name, value] of Object.entries(parseCookie(header))) {
    if (value !== undefined) cookies.set(name, value);
  }
  return cookies;
}

/** A `Set-Cookie` header value; throws on a name, value or path a browser would not take back as given. */
export function serializeCookie(name: string, value: string, options: CookieOptions = {}): string {
  return stringifySetCookie({
    name,
    value,
    path: options.path ?? '/',
    httpOnly: options.httpOnly ?? true,
    sameSite: options.sameSite ?? 'strict',
    secure: options.secure ?? true,
    ...(options.maxAge === undefined ? {} : { maxAge: options.maxAge }),
  });
}

/** A `Set-Cookie` header value that makes the browser drop the cookie now. */
export function expiredCookie(name: string, options: Omit<CookieOptions, 'maxAge'> = {}): string {
  return serializeCookie(name, '', { ...options, maxAge: 0 });
}
