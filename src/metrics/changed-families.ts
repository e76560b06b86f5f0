// What a thread's push carries: only the families whose samples changed since its last push. A
// role's fronts keep every thread's latest family by name (the supervisor keeps the latest message of
// each thread and family for a front that starts later), so an unchanged family crosses no thread
// and costs the scraped front no merge: certhub's expiry of every domain changes when a certificate
// does, not each second.
import type { MetricFamily } from './family.js';

interface Sent {
  /** The object last sent: a source that keeps its families until they change is told apart by identity alone. */
  family: MetricFamily;
  samples: string;
}

export class ChangedFamilies {
  private readonly sent = new Map<string, Sent>();

  /** The families of `families` that differ from what was last sent; one sent before and missing now comes back with no samples, so its series end. */
  changed(families: readonly MetricFamily[]): MetricFamily[] {
    const changed: MetricFamily[] = [];
    const present = new Set<string>();
    for (const family of families) {
      present.add(family.name);
      const last = this.sent.get(family.name);
      if (last?.family === family) continue;
      const samples = JSON.stringify(family.values);
      this.sent.set(family.name, { family, samples });
      if (last?.samples !== samples) changed.push(family);
    }
    for (const [name, { family }] of this.sent) {
      if (present.has(name)) continue;
      this.sent.delete(name);
      changed.push({ ...family, values: [] });
    }
    return changed;
  }
}
