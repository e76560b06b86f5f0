// The proxy role's config: the Proxy JSON the certhub panel exports (server, routes), plus optional
// listening and material options with defaults, so an exported file runs unchanged.
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { proxyRoutesSchema } from './agent-exports.js';
import { bindAddress, port, positiveInteger } from './rules.js';

/** Where `certhub-agent fetch` keeps material unless told otherwise; the proxy reads the same folders. */
export const defaultMaterialDir = '/var/lib/certhub-agent';

export const proxyConfigSchema = proxyRoutesSchema.extend({
  /** Address the TLS listener binds. */
  host: bindAddress.default('0.0.0.0'),
  /** TLS port. */
  port: port.default(443),
  /** A plain HTTP port that redirects every route's requests to HTTPS; none when absent. */
  redirect_port: port.optional(),
  /** Folder of `<domain>/{fullchain,privkey}.pem`, as certhub-agent fetch writes it. */
  material_dir: z.string().min(1).default(defaultMaterialDir),
  /** How often the material files are checked for a renewal (a reload(domain) call is immediate). */
  material_check_ms: positiveInteger.max(3_600_000).default(2_000),
  /** Front threads sharing the port. */
  threads: positiveInteger.max(64).default(Math.min(2, availableParallelism())),
  /** Open connections kept to each backend, per front thread. */
  backend_connections: positiveInteger.max(1024).default(64),
  /** Seconds a backend may take to send its response head before the client gets a 504. */
  backend_timeout_seconds: positiveInteger.max(3600).default(60),
  /**
   * The proxy fetches its routes' material from `server` itself (with each route's token), as
   * `certhub-agent fetch --watch` would. false: something else keeps material_dir current.
   */
  fetch: z.boolean().default(true),
  /** Seconds between two fetches of a domain (sooner when half its lifetime has passed). */
  fetch_interval_seconds: positiveInteger.max(604_800).default(3600),
  /** A private CA (PEM file) trusted for `server` besides the system's roots. */
  ca_file: z.string().min(1).optional(),
});

export type ProxyConfig = z.output<typeof proxyConfigSchema>;
