// A latency histogram kept as plain numbers on a hot path (one array index and two additions per
// observation), turned into a prom-client histogram family only when the thread pushes its figures.
import type { Labels, MetricSample } from './family.js';

/** Seconds: from a value served from memory (well under a millisecond) to a slow ACME call. */
export const latencyBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

export class LatencyHistogram {
  /** Observations in each bucket alone (not cumulative); the last one is +Inf. */
  private readonly counts = new Float64Array(latencyBuckets.length + 1);
  private sum = 0;
  private count = 0;

  observe(seconds: number): void {
    let index = 0;
    while (index < latencyBuckets.length && seconds > latencyBuckets[index]!) index++;
    this.counts[index]!++;
    this.sum += seconds;
    this.count++;
  }

  get observations(): number {
    return this.count;
  }

  samples(name: string, labels: Labels): MetricSample[] {
    const samples: MetricSample[] = [];
    let cumulative = 0;
    latencyBuckets.forEach((bound, index) => {
      cumulative += this.counts[index]!;
      samples.push({ metricName: `${name}_bucket`, value: cumulative, labels: { ...labels, le: bound } });
    });
    samples.push({ metricName: `${name}_bucket`, value: this.count, labels: { ...labels, le: '+Inf' } });
    samples.push({ metricName: `${name}_sum`, value: this.sum, labels });
    samples.push({ metricName: `${name}_count`, value: this.count, labels });
    return samples;
  }
}
