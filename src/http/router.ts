// Routes on top of uWS's own router, adding what uWS leaves to the application: copying the request
// before any await, 400 for a route parameter that is not valid percent-encoding, HEAD on every GET
// route, bounded bodies and JSON bodies validated by a schema, authentication and rate limits per
// group, errors answered as JSON with their status, 405 with Allow for a known path and a wrong
// method, 404 for the rest, CORS and preflight (never on authenticated routes), and request logging.
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { z } from 'zod';
import { OutpostError } from '../errors.js';
import type { Logger } from '../log/record.js';
import type { HttpFigures, RouteFigures } from '../metrics/http-figures.js';
import { admit, needsAdmission, run, type Admission, type AnyHandler } from './admission.js';
import type { HostCheck } from './allowed-hosts.js';
import type { AuthScheme } from './auth.js';
import { defaultBodyLimit } from './body.js';
import { corsHeaders, preflightHeaders } from './cors.js';
import type { RateLimitRule } from './rate-limit.js';
import { dropAfterRefusal, refuseMalformed } from './malformed.js';
import { tooManyFromClient } from './client-slots.js';
import { clientAddressKey } from './rate-limit.js';
import { Reply, type Headers } from './reply.js';
import { headProblem } from './request-framing.js';
import { IncomingRequest, parameterNames, type RequestInfo } from './request.js';
import type { HttpServer } from './server.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** A route's body schema, or undefined for a route that reads no JSON. */
export type BodySchema = z.ZodType | undefined;
/** What `request.body` is on a route: its schema's output, or the raw bytes (when it has a body limit). */
export type BodyOf<Schema extends BodySchema> = Schema extends z.ZodType ? z.output<Schema> : Buffer | undefined;
export type Handler<Body = Buffer | undefined, Auth = undefined> = (request: RequestInfo<Body, Auth>, reply: Reply) => void | Promise<void>;

export interface RouteOptions<Schema extends BodySchema = undefined> {
  /** Read the whole body before calling the handler, at most this many bytes (else 413). JSON routes: 64 KiB unless set. */
  bodyLimit?: number;
  /** Read the body as JSON (415 unless `application/json`, 400 unless valid) and validate it: `request.body` is the result. */
  json?: Schema;
  /** Rate limit this route (after the group's own). */
  rateLimit?: RateLimitRule;
  /** Refuse a state-changing request from another origin (403); a login form's POST wants this. */
  sameOrigin?: boolean;
  /** GET routes answer HEAD too unless this is false (a GET that takes something, like a pool value). */
  head?: boolean;
}

export interface GroupOptions<Principal> {
  /** How the group's requests prove who sent them; `request.auth` is what the check returned. Never with CORS. */
  auth?: AuthScheme<Principal>;
  rateLimit?: RateLimitRule;
  sameOrigin?: boolean;
}

export interface RouterOptions {
  /** Add `Access-Control-Allow-Origin: *` to every unauthenticated answer and answer preflight requests. */
  cors?: boolean;
  /** Log one line per request here; leave out for no request log. */
  requestLog?: Logger;
  /** Where failures of handlers are logged. */
  log?: Logger;
  /** Count requests by route here (the front's /metrics); leave out to count nothing. */
  figures?: HttpFigures;
  /** Answer only requests whose Host passes this check, others 421 (allowed-hosts.ts); every Host without it. */
  allowedHost?: HostCheck;
}

const uwsMethod = { GET: 'get', HEAD: 'head', POST: 'post', PUT: 'put', DELETE: 'del', PATCH: 'patch' } as const satisfies Record<string, keyof TemplatedApp>;

/** The route methods shared by the router (routes without authentication) and its groups. */
abstract class Routes<Auth> {
  abstract route<Schema extends BodySchema = undefined>(
    method: Method,
    pattern: string,
    handler: Handler<BodyOf<Schema>, Auth>,
    options?: RouteOptions<Schema>,
  ): this;

  get<Schema extends BodySchema = undefined>(pattern: string, handler: Handler<BodyOf<Schema>, Auth>, options?: RouteOptions<Schema>): this {
    return this.route('GET', pattern, handler, options);
  }

  post<Schema extends BodySchema = undefined>(pattern: string, handler: Handler<BodyOf<Schema>, Auth>, options?: RouteOptions<Schema>): this {
    return this.route('POST', pattern, handler, options);
  }

  put<Schema extends BodySchema = undefined>(pattern: string, handler: Handler<BodyOf<Schema>, Auth>, options?: RouteOptions<Schema>): this {
    return this.route('PUT', pattern, handler, options);
  }

  patch<Schema extends BodySchema = undefined>(pattern: string, handler: Handler<BodyOf<Schema>, Auth>, options?: RouteOptions<Schema>): this {
    return this.route('PATCH', pattern, handler, options);
  }

  delete<Schema extends BodySchema = undefined>(pattern: string, handler: Handler<BodyOf<Schema>, Auth>, options?: RouteOptions<Schema>): this {
    return this.route('DELETE', pattern, handler, options);
  }
}

/** Routes that share authentication, a rate limit or the same-origin rule. */
export class RouteGroup<Auth> extends Routes<Auth> {
  constructor(
    private readonly router: Router,
    private readonly options: GroupOptions<unknown>,
  ) {
    super();
  }

  route<Schema extends BodySchema = undefined>(
    method: Method,
    pattern: string,
    handler: Handler<BodyOf<Schema>, Auth>,
    options: RouteOptions<Schema> = {},
  ): this {
    this.router.add(method, pattern, handler as AnyHandler, options, this.options);
    return this;
  }
}

interface PathMethods {
  methods: Method[];
  /** Methods of the path that send CORS (those without authentication). */
  corsMethods: Method[];
}

export class Router extends Routes<undefined> {
  private readonly paths = new Map<string, PathMethods>();

  constructor(
    private readonly server: HttpServer,
    private readonly options: RouterOptions = {},
  ) {
    super();
  }

  route<Schema extends BodySchema = undefined>(
    method: Method,
    pattern: string,
    handler: Handler<BodyOf<Schema>, undefined>,
    options: RouteOptions<Schema> = {},
  ): this {
    this.add(method, pattern, handler as AnyHandler, options, {});
    return this;
  }

  /**
   * Routes that share `options`. With `auth`, each request must carry a credential the check accepts
   * (else 401) and `request.auth` is what the check returned; such routes never send CORS headers.
   */
  group<Principal = undefined>(options: GroupOptions<Principal>): RouteGroup<Principal> {
    return new RouteGroup<Principal>(this, options);
  }

  /** Registers a route of any group: the one place where uWS is told about routes. */
  add(method: Method, pattern: string, handler: AnyHandler, route: RouteOptions<BodySchema>, group: GroupOptions<unknown>): void {
    const path = this.paths.get(pattern) ?? { methods: [], corsMethods: [] };
    if (path.methods.includes(method)) throw new Error(`route ${method} ${pattern} is defined twice`);
    path.methods.push(method);
    const cors = this.options.cors === true && group.auth === undefined;
    if (cors) path.corsMethods.push(method);
    this.paths.set(pattern, path);

    const rateLimits = [group.rateLimit, route.rateLimit].filter((rule) => rule !== undefined);
    const admission: Admission = {
      rateLimits,
      failureRules: rateLimits.filter((rule) => rule.count === 'failures'),
      sameOrigin: group.sameOrigin === true || route.sameOrigin === true,
      auth: group.auth,
      body: route.json !== undefined || route.bodyLimit !== undefined ? { limit: route.bodyLimit ?? defaultBodyLimit, schema: route.json } : undefined,
    };
    const paramNames = parameterNames(pattern);
    const headers = cors ? corsHeaders : {};
    const checked = needsAdmission(admission);
    const figures = this.options.figures?.route(method, pattern);
    const serve = (res: HttpResponse, req: HttpRequest) => {
      if (refusedHead(res, req) || this.refusedHost(res, req, figures)) return;
      const { request, reply, clientFull } = this.open(res, req, paramNames, headers, figures);
      if (clientFull) {
        reply.error(tooManyFromClient(this.server.clientSlots.limit), true);
      } else if (request.malformedParameter !== undefined) {
        reply.error(new OutpostError('ERR_BAD_REQUEST', `the path parameter ${request.malformedParameter} is not valid percent-encoding`));
      } else if (checked) {
        admit(admission, handler, request, reply);
      } else {
        run(handler, request, reply);
      }
    };
    this.server.install((app) => {
      app[uwsMethod[method]](pattern, serve);
      // RFC 9110 §9.3.2: HEAD is GET without the body; Reply leaves the body out and keeps its length.
      if (method === 'GET' && route.head !== false) app[uwsMethod.HEAD](pattern, serve);
    });
  }

  /**
   * Starts the reply to one request, counted and logged like any other. `clientFull`: its client
   * address already has as many requests in flight as a front answers for one (client-slots.ts).
   */
  private open(
    res: HttpResponse,
    req: HttpRequest,
    paramNames: readonly string[],
    defaultHeaders: Headers,
    figures: RouteFigures | undefined,
  ): { request: IncomingRequest; reply: Reply; clientFull: boolean } {
    const request = new IncomingRequest(res, req, paramNames);
    const end = this.server.begin();
    const slot = this.server.clientSlots.take(clientAddressKey(request));
    const startedAt = performance.now();
    const requestLog = this.options.requestLog;
    // The log line is written after the answer, when the response can no longer be asked.
    const from = requestLog === undefined ? '' : request.remoteAddress;
    const reply = new Reply(res, {
      head: request.method === 'HEAD',
      defaultHeaders,
      log: this.options.log,
      onFinish: (status) => {
        end();
        slot.release();
        figures?.record(status, (performance.now() - startedAt) / 1000, Number(request.headers.get('content-length') ?? 0) || 0, reply.bodyBytes);
        requestLog?.debug(`${request.method} ${request.path} ${status}`, { ms: Math.round((performance.now() - startedAt) * 10) / 10, from });
      },
    });
    return { request, reply, clientFull: slot.full };
  }

  /**
   * True when the request's Host is not one this front answers (a DNS-rebinding name pointing at
   * this server): 421 Misdirected Request, without CORS, before any route reads it. 421 says that
   * this server does not serve that name (RFC 9110 §15.5.20), as the proxy answers a name it has no
   * route for; a client repeating it on another connection gets the same answer.
   */
  private refusedHost(res: HttpResponse, req: HttpRequest, figures: RouteFigures | undefined): boolean {
    const check = this.options.allowedHost;
    if (check === undefined || check(req.getHeader('host'))) return false;
    const { request, reply } = this.open(res, req, [], {}, figures);
    const host = request.headers.get('host') ?? '';
    reply.send(
      421,
      JSON.stringify({
        error: `this server does not answer requests for the host ${JSON.stringify(host)}: a name it is reached by belongs in its allowed_hosts (--allowed-host)`,
      }),
      { 'Content-Type': 'application/json; charset=utf-8' },
    );
    return true;
  }

  /** Adds the fallbacks: preflight and 405 on every known path, 404 on every other. Call after the last route. */
  finish(): void {
    const fallbackHeaders = this.options.cors === true ? corsHeaders : {};
    for (const [pattern, { methods, corsMethods }] of this.paths) {
      const allow = methods.join(', ');
      const headers = corsMethods.length > 0 ? fallbackHeaders : {};
      const figures = this.options.figures?.route('OTHER', pattern);
      this.server.install((app) =>
        app.any(pattern, (res, req) => {
          if (refusedHead(res, req) || this.refusedHost(res, req, figures)) return;
          const { request, reply, clientFull } = this.open(res, req, [], headers, figures);
          if (clientFull) {
            reply.error(tooManyFromClient(this.server.clientSlots.limit), true);
            return;
          }
          if (request.method === 'OPTIONS' && corsMethods.length > 0) {
            reply.send(204, '', preflightHeaders(corsMethods, request.headers.get('access-control-request-headers')));
            return;
          }
          reply.send(405, JSON.stringify({ error: `method ${request.method} not allowed on ${request.path}` }), {
            'Content-Type': 'application/json; charset=utf-8',
            Allow: allow,
          });
        }),
      );
    }
    // Every unknown path counts as one route: a scan of random paths must not make a series each.
    const unmatched = this.options.figures?.route('ANY', '(unmatched)');
    this.server.install((app) =>
      app.any('/*', (res, req) => {
        if (refusedHead(res, req) || this.refusedHost(res, req, unmatched)) return;
        const { request, reply, clientFull } = this.open(res, req, [], fallbackHeaders, unmatched);
        reply.error(
          clientFull ? tooManyFromClient(this.server.clientSlots.limit) : new OutpostError('ERR_NOT_FOUND', `no such path: ${request.path}`),
          clientFull || undefined,
        );
      }),
    );
  }
}

/**
 * True when the request was refused before any route read it: a head uWS let through but frames
 * ambiguously (two Content-Lengths, an obfuscated Transfer-Encoding; request-framing.ts), or a request
 * that came behind such a head in the same read. The proxy refuses the same heads the same way.
 */
function refusedHead(res: HttpResponse, req: HttpRequest): boolean {
  if (dropAfterRefusal(res)) return true;
  const problem = headProblem(req);
  if (problem === undefined) return false;
  refuseMalformed(res, problem);
  return true;
}
