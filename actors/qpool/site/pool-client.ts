// A front's side of the pool: value requests of one turn go to the pool as one take (one message,
// one disk commit); under load a memory-only pool also hands the front values to hold, which answer
// the next requests at once (held-values.ts); /api/status answers from the status the pool
// publishes once it includes every value this front answered.
import { randomUUID } from 'node:crypto';
import { batched } from './batch.js';
import type { ActorContext } from '../../../src/actor/actor.js';
import type { PeerLink } from '../../../src/actor/rpc.js';
import { poolStatusTopic } from '../pool/kind.js';
import type { Holding, PoolApi, PoolStatus, PublishedStatus, TakeAnswer, TakeBatch } from '../pool/protocol.js';
import { asBuffer, entryCount } from '../values/batch.js';
import { HeldValues } from './held-values.js';
import type { ValueToAnswer } from './value-answer.js';

/** A value for one request. */
export interface TakenValue extends ValueToAnswer {
  type: 'value';
}

/** What one request gets: a value, or why there is none. */
export type TakeResult = TakenValue | { type: 'empty' } | { type: 'unavailable'; message: string };

/**
 * How often a front that holds values looks at them: it reports what it served meanwhile (the
 * pool's status interval), and once a whole interval went by without a request it gives back what
 * it holds, so that another front, and values that arrived since (newest first), serve them.
 */
const settleIntervalMs = 50;

export class PoolClient {
  private latest: PublishedStatus | undefined;
  /** The change count of the pool's last answer to this front: a published status older than it misses a take. */
  private answeredChanges = 0;
  private readonly held = new HeldValues();
  /** Made anew each start: the pool drops what an earlier run of this front held. */
  private readonly start = randomUUID();
  private refilling = false;
  private settleTimer: NodeJS.Timeout | undefined;
  /** A held value was served since the settle timer last ran. */
  private busy = false;
  /** Calls on their way to the pool with a report of held values served (takes, refills, reports). */
  private reportsInFlight = 0;
  private readonly takeBatched = batched<null, TakeResult>(async (requests) => {
    const results = perRequest(await this.ask(requests.length), requests.length);
    // A refill answered just before may have brought values the pool no longer had for these.
    return results.map((result) => (result.type === 'empty' ? (this.takeHeld() ?? result) : result));
  });

  constructor(
    private readonly pool: PeerLink<PoolApi>,
    private readonly context: Pick<ActorContext<unknown>, 'name' | 'log' | 'subscribe'>,
  ) {
    context.subscribe(poolStatusTopic, (published) => {
      if (this.latest === undefined || published.changes > this.latest.changes) this.latest = published;
    });
  }

  /** A held value at once; undefined when none is held. */
  private takeHeld(): TakenValue | undefined {
    const value = this.held.take();
    if (value === undefined) return undefined;
    this.busy = true;
    this.refillIfLow();
    return { type: 'value', ...value };
  }

  /** A value for one request: held, or from the pool with the other requests of this turn. */
  take(): TakenValue | Promise<TakeResult> {
    this.held.arrived();
    return this.takeHeld() ?? this.takeBatched(null);
  }

  async status(): Promise<PoolStatus> {
    // Values served from the holding are in no status until reported; a report on its way (with a
    // take, a refill or alone) is overtaken by no call sent after it, so the status that answers a
    // new report includes it.
    if (this.held.reportDue || this.reportsInFlight > 0) return this.report();
    if (this.latest !== undefined && this.latest.changes >= this.answeredChanges) return this.latest.status;
    return this.pool.call((api) => api.status());
  }

  private async ask(count: number): Promise<TakeAnswer> {
    const mark = this.held.mark;
    const hold = this.held.wanted;
    const answer = await this.reporting((holding) => this.pool.call((api) => api.take({ count, hold, holding })));
    this.held.answered(answer, mark, count);
    this.answeredChanges = Math.max(this.answeredChanges, answer.changes);
    if (this.held.size > 0) this.settleSoon();
    return answer;
  }

  /** Runs `send` with the held values served so far reported; a report that fails goes with the next. */
  private async reporting<Result>(send: (holding: Holding) => Promise<Result>): Promise<Result> {
    const served = this.held.takeReport();
    // Only a report of values served can be missing from a status (a pool file's fronts send none).
    const counted = served > 0 ? 1 : 0;
    this.reportsInFlight += counted;
    try {
      return await send({ front: this.context.name, start: this.start, served });
    } catch (error) {
      this.held.unreport(served);
      throw error;
    } finally {
      this.reportsInFlight -= counted;
    }
  }

  private refillIfLow(): void {
    if (!this.held.low || this.refilling) return;
    this.refilling = true;
    this.ask(0)
      .catch((error: unknown) => this.context.log.warn('the pool did not answer', { error: String(error) }))
      .finally(() => {
        this.refilling = false;
      });
  }

  /** Runs every settleIntervalMs while values are held or served ones are not reported yet. */
  private settle(): void {
    this.settleTimer = undefined;
    const paused = !this.busy;
    this.busy = false;
    const returned = paused ? this.held.giveBack() : undefined;
    if (this.held.reportDue || returned !== undefined) {
      this.report(returned).catch(() => {
        // The pool is away (its takes log that); what was served goes with the next report.
        if (returned !== undefined) this.held.keep(returned);
        this.settleSoon();
      });
    }
    if (this.held.size > 0 || this.held.reportDue) this.settleSoon();
  }

  /** Reports the held values served so far, and gives back `returned`; answers the status that includes them. */
  private async report(returned?: Buffer): Promise<PoolStatus> {
    const answer = await this.reporting((holding) => this.pool.call((api) => api.report(holding, returned)));
    // A published status from before this report would miss what it counted.
    this.answeredChanges = Math.max(this.answeredChanges, answer.changes);
    return answer.status;
  }

  private settleSoon(): void {
    this.settleTimer ??= setTimeout(() => this.settle(), settleIntervalMs);
  }
}

/** Fans one take's answer out to the requests that made it, in order. */
function perRequest(batch: TakeBatch, requests: number): TakeResult[] {
  if (batch.failure !== undefined) return Array.from({ length: requests }, () => ({ type: 'unavailable', message: batch.failure ?? '' }));
  const values = asBuffer(batch.values);
  const taken = entryCount(values);
  return Array.from({ length: requests }, (_, index) =>
    index < taken ? { type: 'value', values, index, available: batch.available + taken - 1 - index } : { type: 'empty' },
  );
}
