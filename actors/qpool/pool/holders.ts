// Values the fronts hold: under load a front takes more values than its waiting
// requests need and answers the next requests from them without a round trip to the pool thread
// (actors/qpool/site/held-values.ts). Held values have left the pool, so no other request
// can get them, and they are remembered as served, so a copy arriving again is a duplicate; they
// count as available (and toward the capacity) until their front reports them served, or gives them
// back when its requests pause. A front that restarted lost what it held (a crash loses values, never
// serves one twice; with a pool file they are on disk as served since they were handed over): its
// count starts over.
import type { Holding } from './protocol.js';

export class Holders {
  private readonly byFront = new Map<string, { start: string; held: number }>();
  private heldTotal = 0;

  /** Values held by every front together, not yet reported served. */
  get total(): number {
    return this.heldTotal;
  }

  /**
   * Applies a front's report of what it served and of `returned` values it gives back unserved;
   * answers how many it served (the caller counts them served).
   */
  report(holding: Holding, returned = 0): number {
    const entry = this.entry(holding);
    // More than it held: the pool restarted since it handed them over; they were served all the same.
    const settled = Math.min(entry.held, holding.served + returned);
    entry.held -= settled;
    this.heldTotal -= settled;
    return holding.served;
  }

  grant(holding: Holding, count: number): void {
    this.entry(holding).held += count;
    this.heldTotal += count;
  }

  private entry(holding: Holding): { start: string; held: number } {
    let entry = this.byFront.get(holding.front);
    if (entry === undefined || entry.start !== holding.start) {
      // A new front, or the same front started again: what its last run held is gone with it.
      if (entry !== undefined) this.heldTotal -= entry.held;
      entry = { start: holding.start, held: 0 };
      this.byFront.set(holding.front, entry);
    }
    return entry;
  }
}
