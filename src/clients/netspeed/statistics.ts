export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Mean absolute difference of consecutive samples (RFC 3550's idea, without its smoothing). */
export function jitter(values: readonly number[]): number {
  if (values.length < 2) return 0;
  let total = 0;
  for (let index = 1; index < values.length; index++) total += Math.abs(values[index]! - values[index - 1]!);
  return total / (values.length - 1);
}

export interface ByteSample {
  /** Milliseconds (performance.now). */
  at: number;
  /** Bytes received so far. */
  total: number;
}

/**
 * Goodput in bits per second from cumulative byte samples, leaving out the warm-up: TCP slow start,
 * a shaper's initial burst and the client's own start-up make the first moments lumpy (on a 100
 * Mbit/s tbf link, 40 Mbit/s and then 180 Mbit/s windows in the first 700 ms before a flat 95.7).
 * The warm-up is the first second, or the first half of a shorter transfer; a transfer under half
 * a second is taken from its first byte to its last.
 */
export function goodputBitsPerSecond(samples: readonly ByteSample[], startedAt: number): number {
  const last = samples.at(-1);
  if (last === undefined) return 0;
  const elapsed = last.at - startedAt;
  if (elapsed <= 0) return 0;
  const warmUpEnd = startedAt + Math.min(1000, elapsed / 2);
  const fromWarmUp = samples.find((sample) => sample.at >= warmUpEnd);
  if (elapsed < 500 || fromWarmUp === undefined || fromWarmUp === last) {
    // Too short for a warm-up: from the first byte, so that connecting is not counted as transfer.
    const first = samples[0]!;
    const span = last.at - first.at;
    return span > 0 && samples.length > 1 ? ((last.total - first.total) * 8) / (span / 1000) : (last.total * 8) / (elapsed / 1000);
  }
  return ((last.total - fromWarmUp.total) * 8) / ((last.at - fromWarmUp.at) / 1000);
}
