// The proxy role's config: the Proxy JSON the certhub panel exports (server, routes), plus optional
// listening and material options with defaults, so an exported file runs unchanged.
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { keyTypes } from '../../src/crypto/key-types.js';
import { isRemotePlainHttp } from './client/fetch-targets.js';
import { proxyRoutesSchema, serverList } from './agent-exports.js';
import { bindAddress, port, positiveInteger, trustedProxies } from '../../src/config/rules.js';
import { hostNameProblem, normalizeName } from '../../src/net/host-names.js';
import { parseBackendTarget } from './proxy-front/backend-target.js';

/** Where `certhub-agent fetch` keeps material unless told otherwise; the proxy reads the same folders. */
export const defaultMaterialDir = '/var/lib/certhub-agent';

const hstsSchema = z
  .strictObject({
    max_age_seconds: z
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .default(63_072_000)
      .describe("How long the browser remembers; two years, Mozilla's recommendation, by default."),
    include_subdomains: z.boolean().default(false).describe("The rule covers every name under the route's too (includeSubDomains)."),
  })
  .describe('Strict-Transport-Security for the route: browsers then refuse plain HTTP for the name (RFC 6797). None when absent.');

/** A backend: `host:port` (plain HTTP/1.1), `http://host:port` or `https://host:port`; IPv6 in brackets. */
const backendTarget = z
  .string()
  .refine((text) => parseBackendTarget(text) !== undefined, { message: 'must be host:port, http://host:port or https://host:port' });

const healthCheckSchema = z
  .strictObject({
    path: z
      .string()
      .regex(/^\/[\x21-\x7e]*$/, { message: 'must be a path starting with /' })
      .default('/')
      .describe('The path asked for.'),
    interval_seconds: positiveInteger.max(3600).default(5).describe('Time between two checks of a backend.'),
    timeout_seconds: positiveInteger.max(60).default(2).describe('A check not answered in this time failed.'),
    healthy_threshold: positiveInteger.max(100).default(2).describe('Passed checks in a row that bring a backend marked down back into use.'),
    unhealthy_threshold: positiveInteger
      .max(100)
      .default(3)
      .describe('Failed checks in a row (an error, a timeout, a status outside 200-399) that take a backend out of use.'),
  })
  .describe('Active health checks: each front asks every backend for path on a connection of its own. None when absent.');

const passiveHealthSchema = z
  .strictObject({
    max_failures: positiveInteger
      .max(1000)
      .default(3)
      .describe('Failures (unreachable, reset, malformed, no answer in time) within fail_window_seconds that rest a backend.'),
    fail_window_seconds: positiveInteger.max(3600).default(10).describe('The window max_failures counts failures in.'),
    rest_seconds: positiveInteger.max(3600).default(30).describe('How long a backend that failed rests before requests try it again.'),
  })
  .describe("Passive health checks, from the requests themselves; only with two backends or more, as nginx's max_fails.");

const backendTlsSchema = z
  .strictObject({
    ca_file: z.string().min(1).optional().describe("CAs (PEM file) the backend's certificate may chain to, instead of the system's roots."),
    servername: z
      .string()
      .min(1)
      .max(253)
      .optional()
      .describe("The name the backend's certificate must carry, and the SNI sent; the backend's host by default."),
    verify: z
      .boolean()
      .default(true)
      .describe("false accepts any certificate (a backend's self-signed one): the link is then encrypted but not authenticated."),
  })
  .describe('How an https:// (or wss) backend is verified.');

/** A route as exported by the panel, plus the proxy's own optional keys. */
export const proxyRouteSchema = proxyRoutesSchema.shape.routes.valueType
  .extend({
    backend: backendTarget
      .optional()
      .describe(
        'The one backend, as the panel exports it: host:port (plain HTTP/1.1), http://host:port or https://host:port, IPv6 in brackets; or backends for several.',
      ),
    token: proxyRoutesSchema.shape.routes.valueType.shape.token.describe("The route's token, which fetches its certificate from server."),
    backends: z.array(backendTarget).min(1).max(64).optional().describe('Several backends, each as backend; instead of backend.'),
    policy: z.enum(['round_robin', 'least_connections', 'first_available']).default('round_robin').describe('How a request picks among backends that are up.'),
    health_check: healthCheckSchema.optional(),
    passive_health: passiveHealthSchema.prefault({}),
    backend_tls: backendTlsSchema.prefault({}),
    hsts: hstsSchema.optional(),
  })
  .describe('A route: the name clients ask for (by SNI and Host), the backends it goes to, and the token that fetches its certificate.');

export const proxyConfigSchema = proxyRoutesSchema
  .extend({
    routes: z.record(z.string().min(1).max(253), proxyRouteSchema).describe('Each route, by the full name it serves (lower case, no trailing dot).'),
    host: bindAddress.default('0.0.0.0').describe('The address the TLS listener binds.'),
    port: port.default(443).describe('The TLS port.'),
    redirect_port: port
      .optional()
      .describe("A plain HTTP port that redirects to HTTPS the requests for every name a route's certificate covers; none when absent."),
    metrics_host: bindAddress.default('127.0.0.1').describe('The address of the plain HTTP listener of /metrics, /healthz and /readyz (with metrics_port).'),
    metrics_port: port.optional().describe('The port of that listener (the TLS port serves routed names only); none when absent.'),
    material_dir: z.string().min(1).default(defaultMaterialDir).describe('Folder of <domain>/{fullchain,privkey}.pem, as certhub-agent fetch writes it.'),
    material_check_ms: positiveInteger.max(3_600_000).default(2_000).describe('How often the material files are checked for a renewal.'),
    threads: positiveInteger
      .max(64)
      .default(Math.min(2, availableParallelism()))
      .describe('Front threads sharing the port.')
      .meta({ 'x-default': 'the smaller of 2 and the number of CPUs' }),
    backend_connections: positiveInteger.max(1024).default(64).describe('Open connections kept to each backend, per front thread.'),
    backend_timeout_seconds: positiveInteger
      .max(3600)
      .default(60)
      .describe("From a request's arrival (its wait for a connection included) to the backend's response head; past it, 504."),
    backend_queue: positiveInteger
      .max(100_000)
      .default(256)
      .describe('Requests per route and thread that may wait for a backend connection; more get 503 with Retry-After.'),
    upload_min_bytes_per_second: positiveInteger
      .max(1 << 30)
      .default(1024)
      .describe('An upload slower than this (averaged over upload_window_seconds) is dropped with 408.'),
    upload_window_seconds: positiveInteger.max(3600).default(10).describe('The window upload_min_bytes_per_second is averaged over.'),
    trusted_proxies: trustedProxies.describe(
      "Proxies in front of this one (IP addresses): from them, a client's X-Forwarded-For is extended and its X-Real-IP, True-Client-IP and Forwarded are kept; from anyone else they are dropped.",
    ),
    access_log: z
      .strictObject({
        path: z.string().min(1).describe('The file, appended to; - for standard output.'),
        format: z.enum(['json', 'combined']).default('json').describe('JSON lines, or the combined format of nginx and Apache.'),
      })
      .optional()
      .describe('A line per request a route answered. None when absent.'),
    websocket_max_per_client: positiveInteger.max(100_000).default(64).describe('Relayed WebSockets one client address may hold, per thread.'),
    websocket_max_total: positiveInteger.max(1_000_000).default(10_000).describe('Relayed WebSockets per thread (each holds a backend connection too).'),
    websocket_idle_seconds: positiveInteger
      .max(86_400)
      .default(300)
      .describe('How long a relayed WebSocket may stay silent both ways before it is closed (1001).'),
    websocket_max_buffered_bytes: positiveInteger
      .max(1 << 30)
      .default(1 << 20)
      .describe('Bytes waiting for a slow side of a relayed WebSocket before it is closed (1013).'),
    fetch: z
      .boolean()
      .default(true)
      .describe(
        "The proxy fetches its routes' material from server itself (with each route's token), as certhub-agent fetch --watch would; false: something else keeps material_dir current.",
      ),
    fetch_interval_seconds: positiveInteger
      .max(604_800)
      .default(3600)
      .describe('Time between two fetches of a domain (sooner when half its lifetime has passed).'),
    host_name: z
      .string()
      .min(1)
      .max(253)
      // eslint-disable-next-line no-control-regex -- refusing control characters is the point
      .regex(/^[^\u0000-\u001f\u007f]*$/, { message: 'must hold no control characters' })
      .optional()
      .describe("The name this host reports to certhub with after each fetch (certhub-agent proxy --host-name overrides it); default: the system's host name."),
    ca_file: z.string().min(1).optional().describe("A private CA (PEM file) trusted for server besides the system's roots."),
    ca_bundle: z.string().min(1).optional().describe("The CAs (PEM file) the fetched certificates may chain to besides the system's roots."),
    allow_untrusted: z.boolean().default(false).describe('Write material whose chain leads to no trusted root (certhub --demo certificates).'),
    own_key: z
      .boolean()
      .default(false)
      .describe(
        "Keep each route's private key on this host: made here (0600, in material_dir), and certhub is sent a CSR for it; the domains must be own_key in certhub.",
      ),
    own_key_type: z.enum(keyTypes).default('ecdsa-p256').describe('With own_key: the type of a key made here.'),
    insecure_http: z.boolean().default(false).describe('Fetch from a plain http:// server on another machine (tokens and keys cross the network in clear).'),
  })
  .superRefine((config, context) => {
    // A route is served under its name by SNI and its material read from material_dir/<name>/: a name
    // no client can send (`under_score`, `App.Example`, `localhost`) would be a route that never answers.
    for (const [name, route] of Object.entries(config.routes)) {
      const problem = routeNameProblem(name);
      if (problem !== undefined) context.addIssue({ code: 'custom', path: ['routes', name], message: problem });
      if ((route.backend === undefined) === (route.backends === undefined))
        context.addIssue({ code: 'custom', path: ['routes', name, 'backend'], message: 'give either backend or backends, not both nor neither' });
    }
    // A server that is no URL is reported by its own rule; this check runs all the same (zod runs refinements past a format issue).
    const servers = serverList(config.server);
    const serverPath = (index: number) => (typeof config.server === 'string' ? ['server'] : ['server', index]);
    servers.forEach((server, index) => {
      if (config.fetch && !config.insecure_http && URL.canParse(server) && isRemotePlainHttp(new URL(server))) {
        context.addIssue({
          code: 'custom',
          path: serverPath(index),
          message:
            'is plain http:// to another machine: the tokens and the private keys would cross the network in clear; use https:// (or set insecure_http: true)',
        });
      }
    });
    if (config.allow_untrusted && config.ca_bundle !== undefined)
      context.addIssue({ code: 'custom', path: ['allow_untrusted'], message: 'cannot be true with a ca_bundle' });
    if (config.pin !== undefined && servers.some((server) => !server.startsWith('https:')))
      context.addIssue({ code: 'custom', path: ['pin'], message: `needs the server's https:// address${servers.length === 1 ? '' : ', of every server'}` });
  });

export type ProxyConfig = z.output<typeof proxyConfigSchema>;
export type ProxyRouteConfig = ProxyConfig['routes'][string];

/** Why a route's name is not a host name as clients send it (lower case, no trailing dot), or undefined. */
function routeNameProblem(name: string): string | undefined {
  const normalized = normalizeName(name);
  if (normalized !== name) return `must be written as ${normalized} (lower case, no trailing dot), the form clients send`;
  const problem = hostNameProblem(name);
  return problem === undefined ? undefined : `is not a host name: it ${problem}`;
}
