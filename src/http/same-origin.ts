// Cross-site request forgery protection for routes a browser reaches with a cookie: a state-changing
// request must come from a page of this same origin. Browsers say where a request comes from in
// `Sec-Fetch-Site` (all current ones) and `Origin` (on every cross-origin POST, even the older ones);
// a request with neither is not from a browser and carries no ambient cookie risk. This is the model
// of Go's net/http CrossOriginProtection and of the OWASP CSRF cheat sheet's "Fetch Metadata" defence.
import { OutpostError } from '../errors.js';
import type { RequestInfo } from './request.js';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** True when a request may change state from where it comes: a safe method, the same origin, or no browser at all. */
export function isSameOrigin(request: Pick<RequestInfo<unknown, unknown>, 'method' | 'headers'>): boolean {
  if (safeMethods.has(request.method.toUpperCase())) return true;
  const site = request.headers.get('sec-fetch-site');
  // `none`: the user typed the address or used a bookmark, which no other site can make happen.
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  const origin = request.headers.get('origin');
  if (origin === undefined) return true;
  const host = request.headers.get('host');
  if (host === undefined || origin === 'null') return false;
  try {
    return new URL(origin).host === new URL(`http://${host}`).host;
  } catch {
    return false;
  }
}

/**
 * Throws 403 when a browser says the request comes from another site (`Sec-Fetch-Site: cross-site`),
 * whatever its method: for a GET that spends something (a value taken from a pool), an `<img>` tag
 * on any page would otherwise spend it. Same-site, same-origin, `none` (typed or bookmarked) and no
 * header at all (not a browser) pass.
 */
export function assertNotCrossSite(request: Pick<RequestInfo<unknown, unknown>, 'headers'>): void {
  if (request.headers.get('sec-fetch-site') === 'cross-site')
    throw new OutpostError('ERR_FORBIDDEN', 'cross-site request refused: a page of another site may not take values');
}

/** Throws 403 unless `isSameOrigin(request)`. */
export function assertSameOrigin(request: Pick<RequestInfo<unknown, unknown>, 'method' | 'headers'>): void {
  if (!isSameOrigin(request)) throw new OutpostError('ERR_FORBIDDEN', 'cross-origin request refused');
}
