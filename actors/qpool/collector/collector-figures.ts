// What the collector counts for the send role's /metrics (src/metrics/): values collected and failed
// requests, by source (keyed, legacy, demo). Made into families only when the thread pushes.
import { family, type MetricFamily } from '../../../src/metrics/family.js';
import type { SourceSettings } from './protocol.js';

type Source = SourceSettings['source'];

export class CollectorFigures {
  private readonly values = new Map<Source, number>();
  private readonly errors = new Map<Source, number>();

  /** Every configured source has its series from the start, at 0: an alert on a rate sees a source that never answered. */
  constructor(sources: readonly Source[]) {
    for (const source of sources) {
      this.values.set(source, 0);
      this.errors.set(source, 0);
    }
  }

  collected(source: Source, count: number): void {
    this.values.set(source, (this.values.get(source) ?? 0) + count);
  }

  failed(source: Source): void {
    this.errors.set(source, (this.errors.get(source) ?? 0) + 1);
  }

  families(): MetricFamily[] {
    const bySource = (counts: Map<Source, number>) => [...counts].map(([source, value]) => ({ value, labels: { source } }));
    return [
      family(
        'outpost_send_values_collected_total',
        'Random values the collector took from a source (keyed, legacy, demo) and handed to the diode sender.',
        'counter',
        bySource(this.values),
      ),
      family(
        'outpost_send_provider_errors_total',
        'Requests to a source that failed (no answer, an error status, an answer that could not be read).',
        'counter',
        bySource(this.errors),
      ),
    ];
  }
}
