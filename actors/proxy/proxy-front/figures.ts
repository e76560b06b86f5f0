// What a proxy front thread counts of its routes, for the role's /metrics (src/metrics/): answers by
// status class, backend failures, the time to the backend's response head, open WebSockets, and the
// certificate each route serves. Plain numbers on the hot path (one array slot and a histogram slot
// per request), made into metric families only when the thread pushes its figures.
import { family, type MetricFamily, type MetricSample } from '../../../src/metrics/family.js';
import { LatencyHistogram } from '../../../src/metrics/histogram.js';
import type { BackendError } from './backend-pool.js';

const statusClasses = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

/** One route's figures; the same object for a domain across route reloads, so counters never go back. */
export class RouteFigures {
  private readonly answers = new Float64Array(statusClasses.length);
  private readonly backendErrors = new Map<BackendError['kind'], number>();
  /** From the request's arrival (its wait for a backend connection included) to the backend's response head. */
  readonly upstream = new LatencyHistogram();
  webSocketsOpen = 0;

  constructor(readonly domain: string) {}

  /** A status the client was sent, by the backend or by the proxy itself. */
  answered(status: number): void {
    const index = Math.floor(status / 100) - 1;
    if (index >= 0 && index < statusClasses.length) this.answers[index]!++;
  }

  backendFailed(kind: BackendError['kind']): void {
    this.backendErrors.set(kind, (this.backendErrors.get(kind) ?? 0) + 1);
  }

  answerSamples(): MetricSample[] {
    return statusClasses.flatMap((statusClass, index) =>
      this.answers[index] === 0 ? [] : [{ value: this.answers[index]!, labels: { domain: this.domain, status_class: statusClass } }],
    );
  }

  backendErrorSamples(): MetricSample[] {
    return [...this.backendErrors].map(([kind, value]) => ({ value, labels: { domain: this.domain, kind } }));
  }
}

/** What the thread's served certificates say of one route (served-certificates.ts). */
export interface ServedFigures {
  domain: string;
  /** Seconds since the epoch when the served certificate expires; absent before one is served. */
  expiresAt?: number;
  /** New material swapped in since the thread started (the first load counts). */
  swaps: number;
}

export class ProxyFigures {
  private readonly routes = new Map<string, RouteFigures>();
  private tlsAccepted = 0;
  private tlsOpen = 0;
  private unservedNames = 0;

  /**
   * uWS's connection filter: +1 when the TLS port accepts a connection, -1 when one closes. uWS gives
   * no hook on the handshake itself, so accepted connections stand for handshakes begun.
   */
  tlsConnection(change: number): void {
    if (change > 0) this.tlsAccepted++;
    this.tlsOpen += change;
  }

  /** A handshake named a server the front has no certificate for: it fails. */
  unservedName(): void {
    this.unservedNames++;
  }

  route(domain: string): RouteFigures {
    let figures = this.routes.get(domain);
    if (figures === undefined) {
      figures = new RouteFigures(domain);
      this.routes.set(domain, figures);
    }
    return figures;
  }

  /** A route taken out by a reload: its series go with it. */
  forget(domain: string): void {
    this.routes.delete(domain);
  }

  families(served: readonly ServedFigures[]): MetricFamily[] {
    const routes = [...this.routes.values()];
    return [
      family(
        'outpost_proxy_requests_total',
        "Requests the proxy answered, by route (domain) and status class, the proxy's own refusals included.",
        'counter',
        routes.flatMap((route) => route.answerSamples()),
      ),
      {
        name: 'outpost_proxy_upstream_duration_seconds',
        help: "Time from a request arriving to its backend's response head, waiting for a backend connection included, by route.",
        type: 'histogram',
        aggregator: 'sum',
        values: routes
          .filter((route) => route.upstream.observations > 0)
          .flatMap((route) => route.upstream.samples('outpost_proxy_upstream_duration_seconds', { domain: route.domain })),
      },
      family(
        'outpost_proxy_backend_errors_total',
        'Requests the backend did not answer: kind failed (unreachable, reset, malformed), timeout or busy (queue full).',
        'counter',
        routes.flatMap((route) => route.backendErrorSamples()),
      ),
      family(
        'outpost_proxy_websockets_open',
        'Relayed WebSockets open now, by route.',
        'gauge',
        routes.map((route) => ({ value: route.webSocketsOpen, labels: { domain: route.domain } })),
      ),
      family('outpost_proxy_tls_connections_total', "Connections the TLS port accepted, each a handshake begun (uWS tells no handshake's end).", 'counter', [
        { value: this.tlsAccepted, labels: {} },
      ]),
      family('outpost_proxy_tls_connections_open', 'Connections open on the TLS port now.', 'gauge', [{ value: this.tlsOpen, labels: {} }]),
      family(
        'outpost_proxy_tls_unserved_names_total',
        'Handshakes refused because their server name has no certificate here (no route, or its material not loaded yet).',
        'counter',
        [{ value: this.unservedNames, labels: {} }],
      ),
      family(
        'outpost_proxy_certificate_swaps_total',
        'Certificates this front started serving for a route (the first load and each renewal).',
        'counter',
        served.map(({ domain, swaps }) => ({ value: swaps, labels: { domain } })),
      ),
      family(
        'outpost_certificate_expiry_timestamp_seconds',
        "When a domain's certificate expires, in seconds since the Unix epoch.",
        'gauge',
        served.flatMap(({ domain, expiresAt }) => (expiresAt === undefined ? [] : [{ value: expiresAt, labels: { domain } }])),
      ),
    ];
  }
}
