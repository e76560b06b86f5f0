// Whether a sampled series grows without bound: a least-squares line through the second half of the
// samples (the first half is warm-up: JIT, caches, pools filling to their size), and three questions
// about it. Pure, so test/unit/soak-verdict.test.ts drives it with synthetic series.

export interface Sample {
  /** Seconds since the soak started. */
  seconds: number;
  value: number;
}

/** What a series may do before it counts as growing, in its own unit. */
export interface GrowthBound {
  /**
   * The smallest rise over the fitted half that can be a leak: below it, allocator granularity (a
   * malloc arena, a page of V8's old space) or one more pooled connection.
   */
  minRise: number;
}

export interface Trend {
  samples: number;
  first: number;
  last: number;
  /** Mean of the fitted half. */
  mean: number;
  /** Slope of the fitted line, per hour. */
  slopePerHour: number;
  /** What the line rises over the fitted half (slope x its duration). */
  rise: number;
  /** Standard deviation of the fitted half around its line: GC sawtooth, jitter. */
  noise: number;
  /** The slope in standard errors: how far from flat the line is, given the noise around it. */
  significance: number;
  grows: boolean;
  /** Why it grows, or why it does not, in words. */
  reason: string;
}

/** Samples the second half must hold for a slope to mean anything. */
export const minFittedSamples = 6;
/**
 * The slope must be this many standard errors from zero. Noise alone stays under 3 (a t statistic);
 * a GC sawtooth fits a slope of the order of its amplitude over the window, which the residuals it
 * leaves make insignificant once the window holds two of its teeth.
 */
const minSignificance = 4;
const secondsPerDay = 86_400;

/**
 * A series grows without bound when the line fitted over its second half
 * 1. has a slope `minSignificance` standard errors or more from zero (a GC sawtooth or jitter fits a
 *    slope that its own residuals make insignificant; a leak's slope stays while its residuals do not
 *    grow),
 * 2. rises by at least `bound.minRise` (a step of allocator granularity is not a leak), and
 * 3. at that slope would more than double the series in a day (so a slow creep measured over an
 *    hour-long soak, small beside what the process holds, passes).
 */
export function judgeGrowth(series: readonly Sample[], bound: GrowthBound): Trend {
  if (series.length < 2 * minFittedSamples) throw new Error(`a trend needs at least ${2 * minFittedSamples} samples, got ${series.length}`);
  const fitted = series.slice(Math.floor(series.length / 2));
  const { slope, noise, standardError } = fitLine(fitted);
  const span = fitted[fitted.length - 1]!.seconds - fitted[0]!.seconds;
  const mean = fitted.reduce((sum, sample) => sum + sample.value, 0) / fitted.length;
  const rise = slope * span;
  const perDay = slope * secondsPerDay;
  const significance = standardError === 0 ? (slope === 0 ? 0 : Number.POSITIVE_INFINITY) : slope / standardError;
  const trend = {
    samples: series.length,
    first: series[0]!.value,
    last: series[series.length - 1]!.value,
    mean,
    slopePerHour: slope * 3600,
    rise,
    noise,
    significance,
  };
  if (significance < minSignificance) return { ...trend, grows: false, reason: 'no significant rise' };
  if (rise < bound.minRise) return { ...trend, grows: false, reason: 'rise below the minimum' };
  if (perDay <= Math.abs(mean)) return { ...trend, grows: false, reason: 'would not double in a day' };
  return { ...trend, grows: true, reason: 'grows steadily' };
}

/** Least-squares line through the samples: its slope per second, the residuals' standard deviation and the slope's standard error. */
export function fitLine(samples: readonly Sample[]): { slope: number; intercept: number; noise: number; standardError: number } {
  const count = samples.length;
  const meanT = samples.reduce((sum, sample) => sum + sample.seconds, 0) / count;
  const meanV = samples.reduce((sum, sample) => sum + sample.value, 0) / count;
  let covariance = 0;
  let variance = 0;
  for (const { seconds, value } of samples) {
    covariance += (seconds - meanT) * (value - meanV);
    variance += (seconds - meanT) ** 2;
  }
  const slope = variance === 0 ? 0 : covariance / variance;
  const intercept = meanV - slope * meanT;
  const squares = samples.reduce((sum, { seconds, value }) => sum + (value - (intercept + slope * seconds)) ** 2, 0);
  const noise = count > 2 ? Math.sqrt(squares / (count - 2)) : 0;
  return { slope, intercept, noise, standardError: variance === 0 ? 0 : noise / Math.sqrt(variance) };
}
