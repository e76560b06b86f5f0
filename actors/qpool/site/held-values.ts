// A front's held values (memory-only pools; the pool's side is actors/qpool/pool/holders.ts). Under load
// the front asks the pool for more values than its waiting requests need and answers the next
// requests from them at once: no round trip to the pool thread and no promise per request, which
// were most of a value's cost. How many it holds follows the demand: four times the value requests
// that arrived during the last round trip to the pool, at most 1,024. A client that asks one value at
// a time makes no such demand: it gets each value straight from the pool, newest first, with an
// exact count of what is left.
import type { TakeBatch } from '../pool/protocol.js';
import { asBuffer, entryBytes, entryCount } from '../values/batch.js';
import type { ValueToAnswer } from './value-answer.js';

/** Fewer value requests than this during a round trip hold nothing. */
const minimumDemand = 4;
/** Held values per request that arrived during a round trip: a refill goes at half, so it comes back before they run out. */
const demandFactor = 4;
/** The most one front holds: what a crash of its process can lose besides the commit in flight. */
export const maximumHeld = 1024;

export class HeldValues {
  /** Newest first: a batch handed over later lay below the ones before it in the pool. */
  private readonly batches: Buffer[] = [];
  /** The next entry of `batches[0]`. */
  private next = 0;
  private held = 0;
  private target = 0;
  private unreported = 0;
  private arrivals = 0;
  /** Values left in the pool and held by the fronts, as of the last answer, less what this front served since. */
  private available = 0;

  /** Counts a value request, held or not: the demand that sizes the holding. */
  arrived(): void {
    this.arrivals++;
  }

  /** A mark to pass to `answered` when the pool answers the take sent now. */
  get mark(): number {
    return this.arrivals;
  }

  /** Takes the newest held value; undefined when none is held. */
  take(): ValueToAnswer | undefined {
    const values = this.batches[0];
    if (values === undefined) return undefined;
    const index = this.next++;
    if (this.next === entryCount(values)) {
      this.batches.shift();
      this.next = 0;
    }
    this.held--;
    this.unreported++;
    this.available = Math.max(0, this.available - 1);
    return { values, index, available: this.available };
  }

  /** Values held now. */
  get size(): number {
    return this.held;
  }

  /** Every held value, newest first, as one batch to give back to the pool; nothing is held after. */
  giveBack(): Buffer | undefined {
    if (this.held === 0) return undefined;
    const [first, ...rest] = this.batches;
    const returned = Buffer.concat([first!.subarray(this.next * entryBytes), ...rest]);
    this.batches.length = 0;
    this.next = 0;
    this.held = 0;
    this.target = 0;
    return returned;
  }

  /** Values given back that did not reach the pool: held again, before the rest (they are newer). */
  keep(returned: Buffer): void {
    const [first, ...rest] = this.batches;
    const firstRest = first === undefined ? [] : [first.subarray(this.next * entryBytes)];
    this.batches.splice(0, this.batches.length, returned, ...firstRest, ...rest);
    this.next = 0;
    this.held += entryCount(returned);
  }

  /** Values to ask the pool for with the next take, to hold. */
  get wanted(): number {
    return Math.max(0, this.target - this.held);
  }

  /** The holding runs low: a refill should go now. */
  get low(): boolean {
    return this.target > 0 && this.held <= this.target / 2;
  }

  /** Held values were served and not reported yet. */
  get reportDue(): boolean {
    return this.unreported > 0;
  }

  /** Held values served since the last report, which the caller now reports. */
  takeReport(): number {
    const served = this.unreported;
    this.unreported = 0;
    return served;
  }

  /** A report that did not reach the pool: it goes with the next one. */
  unreport(served: number): void {
    this.unreported += served;
  }

  /** The pool's answer to a take of `count` values sent at `mark`. */
  answered(answer: TakeBatch, mark: number, count: number): void {
    const demand = this.arrivals - mark + count;
    this.target = demand < minimumDemand ? 0 : Math.min(maximumHeld, demand * demandFactor);
    if (answer.held !== undefined && answer.held.byteLength > 0) {
      const batch = asBuffer(answer.held);
      this.batches.push(batch);
      this.held += entryCount(batch);
    }
    // The pool counts the values served since the take left as still held.
    this.available = Math.max(0, answer.available - this.unreported);
  }
}
