// The gauge's scale: ticks spaced evenly around the arc but not in value, so that 3 Mbps and 900 Mbps
// can both be read (the classic speed test dial). A figure past the top moves the scale up tenfold.

const baseTicks = [0, 1, 5, 10, 20, 30, 50, 75, 100] as const;
const baseTop = 100;
/** 1 Tbps on the widest scale: more than any network card, and a bound on the loop below. */
const widestMagnitude = 1e4;

export class GaugeScale {
  private magnitude = 1;

  get ticks(): number[] {
    return baseTicks.map((tick) => tick * this.magnitude);
  }

  /** Back to the finest scale, for a new phase. */
  reset(): void {
    this.magnitude = 1;
  }

  /** Widens the scale until `value` fits; true when it changed. Never narrows within a phase: no flapping. */
  fit(value: number): boolean {
    const before = this.magnitude;
    while (value > baseTop * this.magnitude && this.magnitude < widestMagnitude) this.magnitude *= 10;
    return this.magnitude !== before;
  }

  /** Where `value` sits along the arc, from 0 to 1. */
  fraction(value: number): number {
    const ticks = this.ticks;
    const segments = ticks.length - 1;
    for (let index = 0; index < segments; index += 1) {
      const low = ticks[index] ?? 0;
      const high = ticks[index + 1] ?? low;
      if (value <= high) return (index + Math.max(0, value - low) / (high - low)) / segments;
    }
    return 1;
  }
}

/** A tick's label: `750`, `2.5k`, `10k`. */
export function tickLabel(value: number): string {
  return value >= 1000 ? `${value / 1000}k` : String(value);
}
