// The four prom-client classes the threads use, each loaded from its own file at the first call.
// prom-client's index loads everything the package has: cluster aggregation (node:cluster), the
// Pushgateway (http, https, url, zlib), the default process metrics and OpenTelemetry's API with
// them. In a fresh worker thread the index cost 53-84 ms of CPU, these four files 5-8 (medians of 7-9
// threads), and certhub starts two threads that register metrics at every start. A thread that
// registers none loads none. The main thread's role-metrics.ts still loads the index: it needs
// AggregatorRegistry, once per process.
//
// The paths are prom-client's own files (it declares no `exports` map, so they resolve like its
// index); the types are the index's. An upgrade that moved them would fail every thread that
// registers a metric, which the metrics tests start.
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

const requireFromHere = createRequire(import.meta.url);

export interface PromClientParts {
  Registry: typeof PromClient.Registry;
  Counter: typeof PromClient.Counter;
  Gauge: typeof PromClient.Gauge;
  Histogram: typeof PromClient.Histogram;
}

let loaded: PromClientParts | undefined;

export function promClient(): PromClientParts {
  loaded ??= {
    Registry: requireFromHere('prom-client/lib/registry') as typeof PromClient.Registry,
    Counter: requireFromHere('prom-client/lib/counter') as typeof PromClient.Counter,
    Gauge: requireFromHere('prom-client/lib/gauge') as typeof PromClient.Gauge,
    Histogram: requireFromHere('prom-client/lib/histogram') as typeof PromClient.Histogram,
  };
  return loaded;
}
