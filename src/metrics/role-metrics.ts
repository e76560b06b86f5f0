// The scraped side: a front keeps the latest figures every thread of its role (and the supervisor)
// pushed, and a scrape merges them with prom-client into the text exposition format. Nothing is
// asked of any actor at scrape time.
import { AggregatorRegistry, Registry } from 'prom-client';
import type { ActorContext } from '../actor/actor.js';
import { metricsTopic } from './topic.js';
import type { MetricFamily } from './family.js';

export class RoleMetrics {
  private readonly latest = new Map<string, MetricFamily[]>();

  constructor(context: Pick<ActorContext<unknown>, 'role' | 'subscribe'>) {
    context.subscribe(metricsTopic(context.role), ({ thread, families }) => this.latest.set(thread, families));
  }

  get contentType(): string {
    return Registry.PROMETHEUS_CONTENT_TYPE;
  }

  /** The Prometheus text of every thread's latest figures. */
  async render(): Promise<string> {
    return AggregatorRegistry.aggregate([...this.latest.values()]).metrics();
  }
}
