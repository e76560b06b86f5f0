// What the proxy's fronts serve of its config's routes: each name, its backends, how they are used and
// verified, and its HSTS value, in the form the fronts take (proxy-front/protocol.ts).
import { readNamedFileSync } from '../../src/config/named-file.js';
import { ConfigError } from '../../src/errors.js';
import { certificatesOf } from './client/material-trust.js';
import type { ProxyConfig, ProxyRouteConfig } from './config.js';
import type { ProxyRoute, UpstreamSettings } from './proxy-front/protocol.js';

function hstsValue({ max_age_seconds, include_subdomains }: { max_age_seconds: number; include_subdomains: boolean }): string {
  return `max-age=${max_age_seconds}${include_subdomains ? '; includeSubDomains' : ''}`;
}

/** What the fronts serve of the routes; an https:// backend's CA file is read here, so a bad one is a config error, not a failing thread. */
export function frontRoutes(config: Pick<ProxyConfig, 'routes'>): ProxyRoute[] {
  return Object.entries(config.routes).map(([domain, route]) => ({
    domain,
    backends: route.backends ?? [route.backend!],
    upstream: upstreamSettings(domain, route),
    ...(route.hsts === undefined ? {} : { hsts: hstsValue(route.hsts) }),
  }));
}

function upstreamSettings(domain: string, route: ProxyRouteConfig): UpstreamSettings {
  const { health_check: active, passive_health: passive, backend_tls: tls } = route;
  return {
    policy: route.policy,
    ...(active === undefined
      ? {}
      : {
          healthCheck: {
            path: active.path,
            intervalMs: active.interval_seconds * 1000,
            timeoutMs: active.timeout_seconds * 1000,
            healthyThreshold: active.healthy_threshold,
            unhealthyThreshold: active.unhealthy_threshold,
          },
        }),
    passive: { maxFailures: passive.max_failures, failWindowMs: passive.fail_window_seconds * 1000, restMs: passive.rest_seconds * 1000 },
    tls: {
      verify: tls.verify,
      ...(tls.servername === undefined ? {} : { servername: tls.servername }),
      ...(tls.ca_file === undefined ? {} : { ca: readCaFile(`routes.${domain}.backend_tls.ca_file`, tls.ca_file) }),
    },
  };
}

/** The PEM text of a CA file a config names, checked to hold certificates; a ConfigError naming the option otherwise. */
export function readCaFile(option: string, path: string): string {
  const text = readNamedFileSync(option, path);
  try {
    certificatesOf(text);
  } catch (error) {
    throw new ConfigError([`${option}: ${path} ${(error as Error).message}`]);
  }
  return text;
}
