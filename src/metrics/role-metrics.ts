// The scraped side: a front keeps the latest figures every thread of its role (and the supervisor)
// pushed, and a scrape merges them with prom-client into the text exposition format. Nothing is
// asked of any actor at scrape time.
import type { ActorContext } from '../actor/actor.js';
import { metricsTopic } from './topic.js';
import type { MetricFamily } from './family.js';

export class RoleMetrics {
  private readonly latest = new Map<string, MetricFamily[]>();

  constructor(context: Pick<ActorContext<unknown>, 'role' | 'subscribe'>) {
    context.subscribe(metricsTopic(context.role), ({ thread, families }) => this.latest.set(thread, families));
  }

  /** The Prometheus text of every thread's latest figures, and its content type. */
  async render(): Promise<{ text: string; contentType: string }> {
    // Loaded at the first scrape, not with every front (see thread-metrics.ts).
    const { AggregatorRegistry, Registry } = await import('prom-client');
    return { text: await AggregatorRegistry.aggregate([...this.latest.values()]).metrics(), contentType: Registry.PROMETHEUS_CONTENT_TYPE };
  }
}
