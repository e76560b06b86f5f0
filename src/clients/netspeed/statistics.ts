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
 * Goodput in bits per second from cumulative byte samples, leaving out the warm-up: TCP slow start
 * and a shaper's initial burst distort the first moments. The warm-up is the first fifth of the
 * transfer time, at most one second; a transfer too short to have one is taken whole.
 */
export function goodputBitsPerSecond(samples: readonly ByteSample[], startedAt: number): number {
  const last = samples.at(-1);
  if (last === undefined) return 0;
  const elapsed = last.at - startedAt;
  if (elapsed <= 0) return 0;
  const warmUpEnd = startedAt + Math.min(1000, elapsed / 5);
  const fromWarmUp = samples.find((sample) => sample.at >= warmUpEnd);
  if (elapsed < 500 || fromWarmUp === undefined || last.at - fromWarmUp.at < elapsed / 2) return (last.total * 8) / (elapsed / 1000);
  return ((last.total - fromWarmUp.total) * 8) / ((last.at - fromWarmUp.at) / 1000);
}
