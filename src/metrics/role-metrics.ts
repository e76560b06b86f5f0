// The scraped side: a front keeps the latest figures every thread of its role (and the supervisor)
// pushed, and a scrape merges them with prom-client into the text exposition format. Nothing is
// asked of any actor at scrape time. Each family's text is kept until one of its threads pushes it
// again (threads push only the families that changed): a scrape merges and renders only those, on
// the front thread that may also serve a hot path.
import type { ActorContext } from '../actor/actor.js';
import { metricsTopic } from './topic.js';
import type { MetricFamily } from './family.js';

interface FamilyEntry {
  /** Thread -> its latest push of the family. */
  threads: Map<string, MetricFamily>;
  /** The family merged over its threads, as text; undefined once a thread pushed it again. */
  text: string | undefined;
}

export class RoleMetrics {
  /** By family name, in the order families first arrived. */
  private readonly families = new Map<string, FamilyEntry>();
  /** The whole text of the last scrape, until any thread pushes again: with pushes every 5 s, four scrapes in five at 1 Hz send it as it is. */
  private text: string | undefined;
  /** Pushes received so far: a render that a push overtook (it awaits) does not keep its text. */
  private pushes = 0;

  constructor(context: Pick<ActorContext<unknown>, 'role' | 'subscribe'>) {
    context.subscribe(metricsTopic(context.role), ({ thread, family }) => {
      let entry = this.families.get(family.name);
      if (entry === undefined) {
        entry = { threads: new Map(), text: undefined };
        this.families.set(family.name, entry);
      }
      entry.threads.set(thread, family);
      entry.text = undefined;
      this.text = undefined;
      this.pushes++;
    });
  }

  /** The Prometheus text of every thread's latest figures, and its content type. */
  async render(): Promise<{ text: string; contentType: string }> {
    const pushesBefore = this.pushes;
    // Loaded at the first scrape, not with every front (see thread-metrics.ts).
    const { AggregatorRegistry, Registry } = await import('prom-client');
    if (this.text !== undefined) return { text: this.text, contentType: Registry.PROMETHEUS_CONTENT_TYPE };
    const texts: string[] = [];
    for (const [name, entry] of this.families) {
      entry.text ??= await AggregatorRegistry.aggregate([...entry.threads.values()].map((family) => [family])).getSingleMetricAsString(name);
      texts.push(entry.text);
    }
    // As Registry.metrics() joins its families.
    const text = `${texts.join('\n\n')}\n`;
    if (this.pushes === pushesBefore) this.text = text;
    return { text, contentType: Registry.PROMETHEUS_CONTENT_TYPE };
  }
}
