// The proxy-front actor: one TLS listener thread of the proxy role. Several share one port.

export interface ProxyRoute {
  /** The full name a client asks for in SNI and Host: `app.example.com`. */
  domain: string;
  /** The route's backends as written (backend-target.ts): `host:port`, `http://host:port`, `https://host:port`. */
  backends: string[];
  upstream: UpstreamSettings;
  /** The Strict-Transport-Security value the route's answers carry; none when absent. */
  hsts?: string;
}

/** How a route's requests are spread over its backends and how those are watched. */
export interface UpstreamSettings {
  policy: 'round_robin' | 'least_connections' | 'first_available';
  /** Active checks; none when absent. */
  healthCheck?: { path: string; intervalMs: number; timeoutMs: number; healthyThreshold: number; unhealthyThreshold: number };
  /** Failures of requests that rest a backend; applied only with two backends or more. */
  passive: { maxFailures: number; failWindowMs: number; restMs: number };
  /** For https:// backends: the CA certificates (PEM text, read at load), the name verified, whether it is. */
  tls: { ca?: string; servername?: string; verify: boolean };
}

/** The bounds that keep slow or hostile clients from holding a route (docs/certhub-agent.md, Proxy limits). */
export interface ProxyLimits {
  /** Requests per route and thread that may wait for a backend connection; more get 503. */
  backendQueue: number;
  uploadFloor: { bytesPerSecond: number; windowMs: number };
  webSocket: { maxPerClient: number; maxTotal: number; idleTimeoutMs: number; maxBufferedBytes: number };
}

export interface ProxyFrontConfig {
  host: string;
  port: number;
  /** Plain HTTP port redirecting to HTTPS; none when absent. */
  redirectPort?: number;
  /** `<materialDir>/<domain>/{fullchain,privkey}.pem` (actors/proxy/client/material-files.ts). */
  materialDir: string;
  materialCheckMs: number;
  routes: ProxyRoute[];
  backendConnections: number;
  /** From a request's arrival to its response head. */
  backendTimeoutMs: number;
  limits: ProxyLimits;
  /** Addresses of proxies in front of this one (config `trusted_proxies`): their X-Forwarded-For and X-Real-IP are passed on. */
  trustedProxies: string[];
  /** Where each request forwarded is logged, and how; none when absent. */
  accessLog?: { path: string; format: 'json' | 'combined' };
  /** This front logs what the role loaded once it listens (start-summary.ts); the first front does, the others load the same. */
  describesStart: boolean;
}

/** What a reload found for a domain. */
export type ReloadOutcome =
  /** New material is served to the next handshakes. */
  | 'swapped'
  /** The files are the ones served already. */
  | 'unchanged'
  /** The files are missing or do not form a usable pair; what was served before is kept. */
  | 'kept';

/** What other actors (the fetch watch loop) may ask of a proxy front. */
export interface ProxyFrontApi {
  /** Reads the domain's material now instead of at the next check; unknown domains are an error. */
  reload(domain: string): Promise<ReloadOutcome>;
}
