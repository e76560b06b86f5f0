// Routes on top of uWS's own router, adding what uWS leaves to the application: copying the request
// before any await, bounded bodies, errors answered as JSON with their status, 405 with Allow for a
// known path and a wrong method, 404 for the rest, CORS and preflight, and request logging.
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import { OutpostError } from '../errors.js';
import type { Logger } from '../log/record.js';
import { readBody } from './body.js';
import { corsHeaders, preflightHeaders } from './cors.js';
import { Reply, type Headers } from './reply.js';
import { parameterNames, snapshotRequest, type RequestInfo } from './request.js';
import type { HttpServer } from './server.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
export type Handler = (request: RequestInfo, reply: Reply) => void | Promise<void>;

export interface RouteOptions {
  /** Read the whole body (at most this many bytes, else 413) before calling the handler. */
  bodyLimit?: number;
}

export interface RouterOptions {
  /** Add `Access-Control-Allow-Origin: *` to every answer and answer preflight requests. */
  cors?: boolean;
  /** Log one line per request here; leave out for no request log. */
  requestLog?: Logger;
  /** Where failures of handlers are logged. */
  log?: Logger;
}

const uwsMethod = { GET: 'get', POST: 'post', PUT: 'put', DELETE: 'del', PATCH: 'patch' } as const;

export class Router {
  private readonly methodsByPattern = new Map<string, Method[]>();
  private readonly defaultHeaders: Headers;

  constructor(
    private readonly server: HttpServer,
    private readonly options: RouterOptions = {},
  ) {
    this.defaultHeaders = options.cors === true ? corsHeaders : {};
  }

  get(pattern: string, handler: Handler, options?: RouteOptions): this {
    return this.route('GET', pattern, handler, options);
  }

  post(pattern: string, handler: Handler, options?: RouteOptions): this {
    return this.route('POST', pattern, handler, options);
  }

  put(pattern: string, handler: Handler, options?: RouteOptions): this {
    return this.route('PUT', pattern, handler, options);
  }

  delete(pattern: string, handler: Handler, options?: RouteOptions): this {
    return this.route('DELETE', pattern, handler, options);
  }

  route(method: Method, pattern: string, handler: Handler, options: RouteOptions = {}): this {
    const methods = this.methodsByPattern.get(pattern) ?? [];
    if (methods.includes(method)) throw new Error(`route ${method} ${pattern} is defined twice`);
    methods.push(method);
    this.methodsByPattern.set(pattern, methods);
    const paramNames = parameterNames(pattern);
    this.server.app[uwsMethod[method]](pattern, (res, req) => {
      const { request, reply } = this.open(res, req, paramNames);
      if (options.bodyLimit === undefined) {
        run(handler, request, reply);
        return;
      }
      readBody(res, request.headers.get('content-length'), options.bodyLimit).then(
        (body) => run(handler, { ...request, body }, reply),
        (error: unknown) => reply.error(error),
      );
    });
    return this;
  }

  /** Starts a reply for a raw uWS handler (hot paths that skip the request copy), counted and logged like any other. */
  open(res: HttpResponse, req: HttpRequest, paramNames: readonly string[] = []): { request: RequestInfo; reply: Reply } {
    const request = snapshotRequest(res, req, paramNames);
    const end = this.server.begin();
    const startedAt = performance.now();
    const requestLog = this.options.requestLog;
    // The log line is written after the answer, when the response can no longer be asked.
    const from = requestLog === undefined ? '' : request.remoteAddress;
    const reply = new Reply(
      res,
      (status) => {
        end();
        requestLog?.info(`${request.method} ${request.path} ${status}`, { ms: Math.round((performance.now() - startedAt) * 10) / 10, from });
      },
      this.defaultHeaders,
      this.options.log,
    );
    return { request, reply };
  }

  /** Adds the fallbacks: preflight and 405 on every known path, 404 on every other. Call after the last route. */
  finish(): void {
    for (const [pattern, methods] of this.methodsByPattern) {
      const allow = methods.join(', ');
      this.server.app.any(pattern, (res, req) => {
        const { request, reply } = this.open(res, req);
        if (request.method === 'OPTIONS' && this.options.cors === true) {
          reply.send(204, '', preflightHeaders(methods, request.headers.get('access-control-request-headers')));
          return;
        }
        reply.send(405, JSON.stringify({ error: `method ${request.method} not allowed on ${request.path}` }), { 'Content-Type': 'application/json; charset=utf-8', Allow: allow });
      });
    }
    this.server.app.any('/*', (res, req) => {
      const { request, reply } = this.open(res, req);
      reply.error(new OutpostError('ERR_NOT_FOUND', `no such path: ${request.path}`));
    });
  }
}

function run(handler: Handler, request: RequestInfo, reply: Reply): void {
  try {
    const result = handler(request, reply);
    if (result instanceof Promise) result.catch((error: unknown) => reply.error(error));
  } catch (error) {
    reply.error(error);
  }
}
