import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import { readBody, type BodyOptions, type StreamedBodyOptions } from './body.js';
import { parseCookies } from './cookies.js';

/**
 * What a handler may read of a request. uWS's HttpRequest lives only until the handler first returns
 * or awaits, so everything is copied out up front.
 *
 * `Body` is what the route declared: the validated value of its JSON schema, or the raw bytes
 * (`Buffer | undefined`) otherwise. `Auth` is what its group's authentication check returned.
 */
export interface RequestInfo<Body = Buffer | undefined, Auth = undefined> {
  method: string;
  /** The path, without the query string. */
  path: string;
  /** Parsed on first read. */
  readonly query: URLSearchParams;
  /** Header names in lower case. */
  headers: ReadonlyMap<string, string>;
  /** Route parameters (`/api/cert/:domain`) by name, percent-decoded. */
  params: Readonly<Record<string, string>>;
  /** The Cookie header by cookie name (parsed on first read). */
  readonly cookies: ReadonlyMap<string, string>;
  /** Made into text on first read (uWS formats it on each call): read it before answering. */
  readonly remoteAddress: string;
  /** The body: its validated value on a route with a JSON schema, its bytes on a route with a body limit. */
  body: Body;
  /** Who the group's authentication check said made the request. */
  auth: Auth;
  /**
   * Reads the body of a route that declared none. Call it before the handler first awaits: uWS drops
   * body chunks that arrive while nothing reads them. With `onChunk`, chunks are handed over as they
   * arrive and not kept (the promise gives the byte count); without, it gives the whole body.
   */
  readBody(options: StreamedBodyOptions): Promise<number>;
  readBody(options: BodyOptions): Promise<Buffer>;
}

export class IncomingRequest implements RequestInfo<unknown, unknown> {
  readonly method: string;
  readonly path: string;
  readonly headers = new Map<string, string>();
  readonly params: Record<string, string> = {};
  /** The first route parameter that is not valid percent-encoding; the router answers 400 for it. */
  readonly malformedParameter: string | undefined;
  body: unknown = undefined;
  auth: unknown = undefined;
  private parsedCookies: ReadonlyMap<string, string> | undefined;
  private readonly rawQuery: string;
  private parsedQuery: URLSearchParams | undefined;
  private addressText: string | undefined;

  constructor(
    private readonly res: HttpResponse,
    req: HttpRequest,
    paramNames: readonly string[],
  ) {
    req.forEach((name, value) => this.headers.set(name, value));
    this.method = req.getCaseSensitiveMethod();
    this.path = req.getUrl();
    this.rawQuery = req.getQuery() ?? '';
    let malformed: string | undefined;
    paramNames.forEach((name, index) => {
      const decoded = decodeParameter(req.getParameter(index) ?? '');
      if (decoded === undefined) malformed ??= name;
      else this.params[name] = decoded;
    });
    this.malformedParameter = malformed;
  }

  // Parsed on first read: most routes take no query, and a URLSearchParams a request adds up.
  get query(): URLSearchParams {
    return (this.parsedQuery ??= new URLSearchParams(this.rawQuery));
  }

  get cookies(): ReadonlyMap<string, string> {
    return (this.parsedCookies ??= parseCookies(this.headers.get('cookie')));
  }

  // The response outlives the request object, so the address can still be asked for after an await.
  get remoteAddress(): string {
    return (this.addressText ??= Buffer.from(this.res.getRemoteAddressAsText()).toString());
  }

  readBody(options: StreamedBodyOptions): Promise<number>;
  readBody(options: BodyOptions): Promise<Buffer>;
  readBody(options: BodyOptions | StreamedBodyOptions): Promise<Buffer | number> {
    return readBody(this.res, this.headers.get('content-length'), options);
  }
}

/** A percent-encoded route parameter as text, or undefined when its encoding is broken (`%E0%A4%A`). */
function decodeParameter(raw: string): string | undefined {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/** The `:name` parameters of a uWS route pattern, in order. */
export function parameterNames(pattern: string): string[] {
  return pattern
    .split('/')
    .filter((part) => part.startsWith(':'))
    .map((part) => part.slice(1));
}
