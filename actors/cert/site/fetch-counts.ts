// Certificate fetches by domain and outcome, for /metrics: counted in a Map on the fetch
// path (one lookup and one add, not prom-client's label hashing per request) and turned into series
// at each push of the thread's metrics. A refused token check is counted under no domain: the name
// asked for is the client's, and one series per made-up name would let anyone grow the scrape.
import type { DomainReplica } from './replica.js';

export type FetchOutcome = 'served' | 'not_issued' | 'forbidden';

export class FetchCounts {
  private readonly byDomain = new Map<string, Record<FetchOutcome, number>>();
  private refusedCount = 0;

  count(domain: string, outcome: FetchOutcome): void {
    let counts = this.byDomain.get(domain);
    if (counts === undefined) {
      counts = { served: 0, not_issued: 0, forbidden: 0 };
      this.byDomain.set(domain, counts);
    }
    counts[outcome]++;
  }

  /** A wrong token, or a domain that does not exist: the same answer, the same count. */
  refused(): void {
    this.refusedCount++;
  }

  /**
   * Every non-zero count, labelled; a domain no longer in the replica is forgotten (its series ends,
   * as a removed target's does).
   */
  samples(replica: DomainReplica): { labels: { domain: string; outcome: string }; value: number }[] {
    const samples: { labels: { domain: string; outcome: string }; value: number }[] = [];
    for (const [domain, counts] of this.byDomain) {
      if (replica.get(domain) === undefined) {
        this.byDomain.delete(domain);
        continue;
      }
      for (const outcome of Object.keys(counts) as FetchOutcome[]) {
        if (counts[outcome] > 0) samples.push({ labels: { domain, outcome }, value: counts[outcome] });
      }
    }
    if (this.refusedCount > 0) samples.push({ labels: { domain: '', outcome: 'refused' }, value: this.refusedCount });
    return samples;
  }
}
