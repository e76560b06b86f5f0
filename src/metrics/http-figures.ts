// What a front counts of its requests, by route (the pattern, never the path: one series per route,
// however many domains or tokens are asked for). The router binds one RouteFigures per route when it
// is registered, so a request costs a map lookup by status and a histogram slot, no label hashing.
import { family, type MetricFamily, type MetricSample } from './family.js';
import { LatencyHistogram } from './histogram.js';

export class RouteFigures {
  private readonly byStatus = new Map<number, number>();
  private readonly latency = new LatencyHistogram();
  private bytesIn = 0;
  private bytesOut = 0;

  constructor(
    readonly method: string,
    readonly route: string,
  ) {}

  /** One answered request: its status, seconds from arrival to the answer, and body bytes each way. */
  record(status: number, seconds: number, bytesIn: number, bytesOut: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    this.latency.observe(seconds);
    this.bytesIn += bytesIn;
    this.bytesOut += bytesOut;
  }

  get requests(): number {
    return this.latency.observations;
  }

  statusSamples(): MetricSample[] {
    return [...this.byStatus].map(([status, value]) => ({ value, labels: { method: this.method, route: this.route, status } }));
  }

  latencySamples(name: string): MetricSample[] {
    return this.latency.samples(name, { method: this.method, route: this.route });
  }

  bytesSamples(direction: 'in' | 'out'): MetricSample {
    return { value: direction === 'in' ? this.bytesIn : this.bytesOut, labels: { method: this.method, route: this.route } };
  }
}

export interface FrontLoad {
  requestsInFlight: number;
  streamsOpen: number;
}

export class HttpFigures {
  private readonly routes = new Map<string, RouteFigures>();

  /** The figures of one route; the same object for the same method and pattern. */
  route(method: string, route: string): RouteFigures {
    const key = `${method} ${route}`;
    let figures = this.routes.get(key);
    if (figures === undefined) {
      figures = new RouteFigures(method, route);
      this.routes.set(key, figures);
    }
    return figures;
  }

  families(load: FrontLoad): MetricFamily[] {
    const used = [...this.routes.values()].filter((route) => route.requests > 0);
    return [
      family(
        'outpost_http_requests_total',
        'HTTP requests answered, by route pattern, method and status.',
        'counter',
        used.flatMap((route) => route.statusSamples()),
      ),
      {
        name: 'outpost_http_request_duration_seconds',
        help: 'Time from a request arriving to its answer being written, by route pattern and method.',
        type: 'histogram',
        aggregator: 'sum',
        values: used.flatMap((route) => route.latencySamples('outpost_http_request_duration_seconds')),
      },
      family(
        'outpost_http_request_body_bytes_total',
        'Request body bytes announced by Content-Length, by route.',
        'counter',
        used.map((route) => route.bytesSamples('in')),
      ),
      family(
        'outpost_http_response_body_bytes_total',
        'Response body bytes sent, by route.',
        'counter',
        used.map((route) => route.bytesSamples('out')),
      ),
      family('outpost_http_requests_in_flight', 'Requests received and not answered yet.', 'gauge', [{ value: load.requestsInFlight, labels: {} }]),
      family('outpost_http_streams_open', 'Long-lived responses open now (event streams).', 'gauge', [{ value: load.streamsOpen, labels: {} }]),
    ];
  }
}
