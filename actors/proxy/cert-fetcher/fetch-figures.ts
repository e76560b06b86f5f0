// What the cert-fetcher counts for the proxy's /metrics (src/metrics/): each fetch of a route's
// material from certhub, by domain and outcome: fetched (new material written), unchanged, failed.
// Counted from the watch loop's events, made into a family only when the thread pushes its figures.
import { family, type MetricFamily } from '../../../src/metrics/family.js';
import type { WatchEvent } from '../client/watch.js';

const outcomes = { written: 'fetched', unchanged: 'unchanged', failed: 'failed' } as const;
type Outcome = (typeof outcomes)[keyof typeof outcomes];

export class FetchFigures {
  /** By domain, then outcome; a domain a reload took out keeps its counts (counters never go back). */
  private readonly counts = new Map<string, Map<Outcome, number>>();

  /** Counts a fetch's outcome; the fronts' failure to reload material, a failed host report and a move to another server are no fetch and are left out. */
  observe(event: WatchEvent): void {
    if (event.type === 'change-failed' || event.type === 'report-failed' || event.type === 'server-moved') return;
    const outcome = outcomes[event.type];
    let byOutcome = this.counts.get(event.domain);
    if (byOutcome === undefined) {
      byOutcome = new Map();
      this.counts.set(event.domain, byOutcome);
    }
    byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + 1);
  }

  families(): MetricFamily[] {
    const samples = [...this.counts].flatMap(([domain, byOutcome]) => [...byOutcome].map(([outcome, value]) => ({ value, labels: { domain, outcome } })));
    return [
      family(
        'outpost_proxy_certificate_fetches_total',
        "Fetches of a route's material from certhub, by domain and outcome: fetched (new material), unchanged, failed.",
        'counter',
        samples,
      ),
    ];
  }
}
