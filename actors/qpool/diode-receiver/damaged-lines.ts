// Damaged lines, logged so that a link that keeps sending the same damage (a replayed file, a broken
// sender) cannot fill the log: the first at once, then at most one summary line per interval that
// counts the lines skipped since, by reason.
import type { Clock } from '../../../src/actor/clock.js';
import type { Logger } from '../../../src/log/record.js';

export class DamagedLineLog {
  private lastLogged = -Infinity;
  /** Lines skipped since the last line logged, by reason. */
  private readonly pending = new Map<string, number>();
  private summaryScheduled = false;

  constructor(
    private readonly intervalMs: number,
    private readonly deps: { clock: Clock; log: Logger },
  ) {}

  skipped(reason: string): void {
    const now = this.deps.clock.now();
    if (!this.summaryScheduled && now - this.lastLogged >= this.intervalMs) {
      this.lastLogged = now;
      this.deps.log.warn(`skipped a damaged line: ${reason}`);
      return;
    }
    this.pending.set(reason, (this.pending.get(reason) ?? 0) + 1);
    if (this.summaryScheduled) return;
    this.summaryScheduled = true;
    void this.deps.clock.sleep(this.lastLogged + this.intervalMs - now).then(() => this.summarise());
  }

  private summarise(): void {
    this.summaryScheduled = false;
    const counts = [...this.pending];
    this.pending.clear();
    const lines = counts.reduce((sum, [, count]) => sum + count, 0);
    if (lines === 0) return;
    this.lastLogged = this.deps.clock.now();
    const reasons = counts.map(([reason, count]) => `${reason} (${count})`).join(', ');
    this.deps.log.warn(`skipped a damaged line ${lines} more time${lines === 1 ? '' : 's'} in the last ${Math.round(this.intervalMs / 1000)}s: ${reasons}`, {
      damagedLines: lines,
    });
  }
}
