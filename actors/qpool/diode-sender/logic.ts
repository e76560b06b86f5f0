// Batches wait in a short queue and go across one at a time. A batch that fails `retryLimit` times is
// dropped: the diode carries nothing back and the sending side never keeps values, so fresh ones
// from the next cycle are worth more than a backlog.
import type { Clock } from '../../../src/actor/clock.js';
import type { Logger } from '../../../src/log/record.js';
import type { TransferOutcome } from './send-command.js';
import type { SenderFigures } from './sender-figures.js';

export interface DiodeSenderDeps {
  transfer(lines: string): Promise<TransferOutcome>;
  clock: Clock;
  log: Logger;
  /** Told each attempt and each batch dropped, when metrics are on. */
  figures?: SenderFigures;
}

/** Batches waiting beyond the one in transfer; older ones are dropped first when a hung diode lets them pile up. */
export const maxWaitingBatches = 16;
const maxRetryDelayMs = 60_000;

interface Batch {
  lines: string;
  count: number;
}

export class DiodeSender {
  private readonly waiting: Batch[] = [];
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly retryLimit: number,
    private readonly retryDelayMs: number,
    private readonly deps: DiodeSenderDeps,
  ) {}

  /** Queues a batch; resolves once it is queued, not once it is across. */
  enqueue(lines: string, count: number): void {
    if (this.stopped) return;
    this.waiting.push({ lines, count });
    if (this.waiting.length > maxWaitingBatches) {
      const dropped = this.waiting.shift();
      this.deps.figures?.droppedFromBacklog();
      this.deps.log.warn(`the diode is not keeping up; dropped a waiting batch of ${dropped?.count ?? 0} values`);
    }
    this.running ??= this.drain().finally(() => (this.running = undefined));
  }

  /** Resolves when the queue is empty (tests, shutdown). */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  stop(): void {
    this.stopped = true;
    this.waiting.length = 0;
  }

  private async drain(): Promise<void> {
    for (let batch = this.waiting.shift(); batch !== undefined && !this.stopped; batch = this.waiting.shift()) {
      await this.deliver(batch);
    }
  }

  private async deliver(batch: Batch): Promise<void> {
    for (let attempt = 1; attempt <= this.retryLimit; attempt++) {
      const outcome = await this.deps.transfer(batch.lines);
      this.deps.figures?.attempted(outcome.ok);
      if (outcome.ok) {
        this.deps.log.info(`sent ${batch.count} values across the diode`, { values: batch.count, attempt });
        return;
      }
      this.deps.log.warn(`diode send attempt ${attempt} of ${this.retryLimit} failed: ${outcome.reason}`);
      if (attempt < this.retryLimit && !this.stopped) await this.deps.clock.sleep(Math.min(this.retryDelayMs * 2 ** (attempt - 1), maxRetryDelayMs));
      if (this.stopped) return;
    }
    this.deps.figures?.gaveUp();
    this.deps.log.error(`gave up after ${this.retryLimit} attempts; dropped ${batch.count} values`, { values: batch.count });
  }
}
