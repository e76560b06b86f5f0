// When an upload's bytes landed, kept fine (a point a millisecond at most) and bounded: a client
// combines the timelines of its parallel streams to measure the span in which every stream was
// sending (see actors/speedtest/client/goodput.ts).

/** Points kept at most; past it every other point goes and the spacing doubles. */
const maxPoints = 2048;

export class ByteTimeline {
  /** Pairs of [milliseconds since the start, bytes by then], flattened. */
  private points: number[] = [];
  private spacingMs = 1;

  constructor(private readonly startedAt: number) {}

  /** Notes that `total` bytes had landed by `now` (performance.now()). */
  record(now: number, total: number): void {
    const at = now - this.startedAt;
    const length = this.points.length;
    // Within the spacing of the previous point, that point moves forward instead of a new one coming.
    if (length >= 4 && at - this.points[length - 4]! < this.spacingMs) {
      this.points[length - 2] = at;
      this.points[length - 1] = total;
      return;
    }
    this.points.push(at, total);
    if (this.points.length > 2 * maxPoints) this.thin();
  }

  /** `[seconds since the start, bytes]` pairs, to 10 µs. */
  toJSON(): [number, number][] {
    const pairs: [number, number][] = [];
    for (let index = 0; index < this.points.length; index += 2) pairs.push([Math.round(this.points[index]! * 100) / 100_000, this.points[index + 1]!]);
    return pairs;
  }

  private thin(): void {
    const last = this.points.slice(-2);
    const kept: number[] = [];
    for (let index = 0; index < this.points.length - 2; index += 4) kept.push(this.points[index]!, this.points[index + 1]!);
    this.points = [...kept, ...last];
    this.spacingMs *= 2;
  }
}
