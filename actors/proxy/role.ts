// The proxy role (certhub-agent proxy): TLS front threads sharing one port, each presenting every
// route's certificate from the material folder and forwarding to the route's backend.
//
// The cert-fetcher actor fetches every route's material from the certhub server (the fetch watch
// loop of certhub-agent) into the material folder and calls `reload(domain)` on each front after it
// wrote new material. Each front also checks the files every `material_check_ms`, for material that
// something else writes (`fetch: false`).
import { actorRef, actorSpec, type ActorRef } from '../../src/actor/kind.js';
import { proxyConfigSchema, type ProxyConfig } from './config.js';
import { serverList } from './agent-exports.js';
import { concretePort } from '../../src/http/port.js';
import { certFetcherActor, fetchRoutesTopic } from './cert-fetcher/kind.js';
import type { FetchRoute } from './cert-fetcher/protocol.js';
import { proxyFrontActor, proxyRoutesTopic } from './proxy-front/kind.js';
import type { ProxyFrontApi, ProxyFrontConfig } from './proxy-front/protocol.js';
import type { LivePublication } from '../../src/config/role.js';
import type { RoleDefinition } from '../../src/config/role.js';
import { frontSpecs } from '../http-front/fronts.js';
import { siteRef } from '../../src/http/site.js';
import { operationsOnlySite } from '../../src/http/operations-site-kind.js';
import { proxyDemo, proxyDemoConfig } from './demo.js';
import { frontRoutes, readCaFile } from './front-routes.js';

/** The references of the role's fronts, for an actor that calls reload(domain) on each. */
export function proxyFrontRefs(config: Pick<ProxyConfig, 'threads'>): ActorRef<ProxyFrontApi>[] {
  return Array.from({ length: config.threads }, (_, index) =>
    actorRef(proxyFrontActor, config.threads === 1 ? 'proxy/proxy-front' : `proxy/proxy-front#${index + 1}`),
  );
}

/**
 * The CA files the config names are read before any actor starts, as every file a config names
 * (src/config/named-file.ts): a missing one is exit 2 naming the option, not a cert-fetcher that
 * crashes at each restart until the supervisor gives up.
 */
function checkCaFiles(config: Pick<ProxyConfig, 'ca_file' | 'ca_bundle'>): void {
  for (const option of ['ca_file', 'ca_bundle'] as const) {
    const path = config[option];
    if (path !== undefined) readCaFile(option, path);
  }
}

/** What the fetcher needs of the routes: each name and its token. */
function fetchRoutes(config: Pick<ProxyConfig, 'routes'>): FetchRoute[] {
  return Object.entries(config.routes).map(([domain, { token }]) => ({ domain, token }));
}

export const proxyRole: RoleDefinition<typeof proxyConfigSchema> = {
  name: 'proxy',
  summary: 'TLS reverse proxy routing domains to backends (certhub-agent proxy)',
  schema: proxyConfigSchema,
  demoConfig: proxyDemoConfig,
  demo: proxyDemo,
  claims: ({ host, port, redirect_port, metrics_host, metrics_port }) => ({
    ports: [
      { host, port, option: 'port' },
      ...(redirect_port === undefined ? [] : [{ host, port: redirect_port, option: 'redirect_port' }]),
      ...(metrics_port === undefined ? [] : [{ host: metrics_host, port: metrics_port, option: 'metrics_port' }]),
    ],
  }),
  secrets: (config) => (Object.keys(config.routes).length > 0 ? 'the route tokens' : undefined),
  // Routes and their tokens change on SIGHUP without dropping a connection (docs/operations.md, Reloading the proxy's routes).
  live: {
    keys: ['routes'],
    publish: (config): LivePublication[] => [
      { topic: proxyRoutesTopic, message: frontRoutes(config) },
      { topic: fetchRoutesTopic, message: fetchRoutes(config) },
    ],
  },
  async actors(config) {
    // Threads share a port through SO_REUSEPORT, which needs the same concrete port for all of them;
    // the fetcher reports the port to certhub, for its probes.
    const port = await concretePort(config.host, config.port, config.threads > 1 || config.fetch);
    const redirectPort = config.redirect_port === undefined ? undefined : await concretePort(config.host, config.redirect_port, config.threads > 1);
    const front: Omit<ProxyFrontConfig, 'describesStart'> = {
      host: config.host,
      port,
      ...(redirectPort === undefined ? {} : { redirectPort }),
      materialDir: config.material_dir,
      materialCheckMs: config.material_check_ms,
      routes: frontRoutes(config),
      backendConnections: config.backend_connections,
      backendTimeoutMs: config.backend_timeout_seconds * 1000,
      trustedProxies: [...config.trusted_proxies],
      ...(config.access_log === undefined ? {} : { accessLog: { path: config.access_log.path, format: config.access_log.format } }),
      limits: {
        backendQueue: config.backend_queue,
        uploadFloor: { bytesPerSecond: config.upload_min_bytes_per_second, windowMs: config.upload_window_seconds * 1000 },
        webSocket: {
          maxPerClient: config.websocket_max_per_client,
          maxTotal: config.websocket_max_total,
          idleTimeoutMs: config.websocket_idle_seconds * 1000,
          maxBufferedBytes: config.websocket_max_buffered_bytes,
        },
      },
    };
    const fronts = proxyFrontRefs(config);
    if (config.fetch) checkCaFiles(config);
    // Started even without routes: a reload may add some.
    const fetcher = config.fetch
      ? [
          actorSpec(certFetcherActor, {
            ref: actorRef(certFetcherActor, 'proxy/cert-fetcher'),
            role: 'proxy',
            config: {
              servers: serverList(config.server),
              routes: fetchRoutes(config),
              materialDir: config.material_dir,
              intervalMs: config.fetch_interval_seconds * 1000,
              ...(config.ca_file === undefined ? {} : { caFile: config.ca_file }),
              ...(config.pin === undefined ? {} : { pin: config.pin }),
              ...(config.ca_bundle === undefined ? {} : { caBundleFile: config.ca_bundle }),
              allowUntrusted: config.allow_untrusted,
              ...(config.own_key ? { ownKeyType: config.own_key_type } : {}),
              fronts,
              ...(config.host_name === undefined ? {} : { hostName: config.host_name }),
              servePort: port,
            },
            links: fronts,
            topics: [fetchRoutesTopic],
          }),
        ]
      : [];
    const operations =
      config.metrics_port === undefined
        ? []
        : await frontSpecs({
            role: 'proxy',
            threads: 1,
            config: { host: config.metrics_host, port: config.metrics_port, site: siteRef(operationsOnlySite, {}) },
          });
    return [
      ...fronts.map((ref, index) =>
        actorSpec(proxyFrontActor, {
          ref,
          role: 'proxy',
          config: { ...front, describesStart: index === 0 },
          front: true,
          instance: index + 1,
          topics: [proxyRoutesTopic],
        }),
      ),
      ...fetcher,
      ...operations,
    ];
  },
};
