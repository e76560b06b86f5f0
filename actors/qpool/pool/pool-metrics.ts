// The pool's figures for the recv fronts' /metrics, read from the service at each push of the
// thread's metrics (src/metrics/thread-metrics.ts), never on the take path.
import type { Registry } from 'prom-client';
import { promClient } from '../../../src/metrics/prom-client-parts.js';
import type { PoolService } from './logic.js';

export function registerPoolMetrics(registry: Registry, service: PoolService): void {
  const { Counter, Gauge } = promClient();
  const registers = [registry];
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  const counter = <Label extends string>(name: string, help: string, labelNames: Label[], read: () => [Partial<Record<Label, string>>, number][]) =>
    new Counter({
      name,
      help,
      labelNames,
      registers,
      collect() {
        this.reset();
        for (const [labels, value] of read()) this.inc(labels, value);
      },
    });
  gauge('outpost_pool_available', 'Values in the pool, those the fronts hold ready to serve included.', () => service.status().available);
  gauge('outpost_pool_capacity', 'Pool capacity (server.max_entries).', () => service.status().capacity);
  gauge('outpost_pool_disk_failing', '1 while the pool files cannot be written (nothing is served).', () => (service.diskFailing ? 1 : 0));
  // A front's give-back lowers served_total (its held values were counted when handed over), but a
  // Prometheus counter that goes down reads as a restart: the counter keeps its highest value, and
  // rises again once the given-back values are served anew.
  let servedHighest = 0;
  counter('outpost_pool_served_total', 'Values served since the pool was created.', [], () => [
    [{}, (servedHighest = Math.max(servedHighest, service.status().served_total))],
  ]);
  counter('outpost_pool_ingested_total', 'Values added to the pool from the diode since this start.', [], () => [[{}, service.counts.ingested]]);
  counter('outpost_pool_dropped_total', 'Values not kept, by reason: already seen (duplicate) or pushed out of a full pool (evicted).', ['reason'], () => [
    [{ reason: 'duplicate' }, service.counts.duplicates],
    [{ reason: 'evicted' }, service.counts.evicted],
  ]);
  counter('outpost_pool_disk_failures_total', 'Failed writes of the pool files since this start.', [], () => [[{}, service.counts.diskFailures]]);
}
