import type { HttpRequest, HttpResponse } from 'uWebSockets.js';

/**
 * What a handler may read of a request. uWS's HttpRequest lives only until the handler first returns
 * or awaits, so everything is copied out up front.
 */
export interface RequestInfo {
  method: string;
  /** The path, without the query string. */
  path: string;
  query: URLSearchParams;
  /** Header names in lower case. */
  headers: ReadonlyMap<string, string>;
  /** Route parameters (`/api/cert/:domain`) by name. */
  params: Readonly<Record<string, string>>;
  /** Made into text on first read (uWS formats it on each call): read it before answering. */
  readonly remoteAddress: string;
  /** The body, for routes that declare a body limit. */
  body?: Buffer;
}

export function snapshotRequest(res: HttpResponse, req: HttpRequest, paramNames: readonly string[]): RequestInfo {
  const headers = new Map<string, string>();
  req.forEach((name, value) => headers.set(name, value));
  const params: Record<string, string> = {};
  paramNames.forEach((name, index) => {
    params[name] = decodeURIComponent(req.getParameter(index) ?? '');
  });
  let remoteAddress: string | undefined;
  return {
    method: req.getCaseSensitiveMethod(),
    path: req.getUrl(),
    query: new URLSearchParams(req.getQuery() ?? ''),
    headers,
    params,
    // The response outlives the request object, so the address can still be asked for after an await.
    get remoteAddress() {
      return (remoteAddress ??= Buffer.from(res.getRemoteAddressAsText()).toString());
    },
  };
}

/** The `:name` parameters of a uWS route pattern, in order. */
export function parameterNames(pattern: string): string[] {
  return pattern
    .split('/')
    .filter((part) => part.startsWith(':'))
    .map((part) => part.slice(1));
}
