import type { HistoryPoint } from './protocol.js';

/** A fixed-size window of samples: memory stays flat however long the dashboard runs. */
export class HistoryWindow {
  private readonly points: HistoryPoint[] = [];

  constructor(readonly capacity: number) {}

  push(point: HistoryPoint): void {
    this.points.push(point);
    if (this.points.length > this.capacity) this.points.shift();
  }

  /** Oldest first; a copy. */
  values(): HistoryPoint[] {
    return this.points.slice();
  }
}
