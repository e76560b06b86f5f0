import type { HistoryPoint } from './protocol.js';

/** A fixed-size window of samples: memory stays flat however long the dashboard runs. */
export class HistoryWindow<Point = HistoryPoint> {
  private readonly points: Point[] = [];

  constructor(readonly capacity: number) {}

  push(point: Point): void {
    this.points.push(point);
    if (this.points.length > this.capacity) this.points.shift();
  }

  /** Oldest first; a copy. */
  values(): Point[] {
    return this.points.slice();
  }
}
