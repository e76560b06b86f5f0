// The soak's closing table: each series' first and last sample, its fitted slope over the second
// half, and the verdict (trend.ts).
import { printTable } from '../harness.js';
import type { Series } from './sampler.js';
import { judgeGrowth, minFittedSamples, type Trend } from './trend.js';
import { bounds } from './sampler.js';

export interface Judged {
  series: Series;
  trend: Trend | undefined;
  /** Too few samples, and none at the run's last sample: its thread ended (a pool's idle worker, an actor restarted), so there is nothing left to grow. */
  ended: boolean;
}

export function judgeAll(all: readonly Series[]): Judged[] {
  const lastSample = Math.max(...all.map(({ samples }) => samples.at(-1)?.seconds ?? 0));
  return all.map((series) => {
    if (series.samples.length >= 2 * minFittedSamples) return { series, trend: judgeGrowth(series.samples, bounds[series.kind]), ended: false };
    return { series, trend: undefined, ended: (series.samples.at(-1)?.seconds ?? lastSample) < lastSample };
  });
}

export function printVerdicts(title: string, judged: readonly Judged[]): void {
  printTable(
    title,
    ['series', 'samples', 'first', 'last', 'slope over the 2nd half, per hour', 'in standard errors', 'verdict'],
    judged.map(({ series, trend, ended }) => {
      const shown = (value: number) => (series.kind === 'memory' ? `${(value / 1024 / 1024).toFixed(1)} MiB` : value.toFixed(0));
      if (trend === undefined)
        return [series.name, series.samples.length, '', '', '', '', ended ? 'not judged: its thread ended' : 'NOT judged: too few samples'];
      const slope = series.kind === 'memory' ? `${(trend.slopePerHour / 1024 / 1024).toFixed(2)} MiB` : trend.slopePerHour.toFixed(1);
      return [
        series.name,
        trend.samples,
        shown(trend.first),
        shown(trend.last),
        slope,
        trend.significance.toFixed(1),
        trend.grows ? 'GROWS' : `ok (${trend.reason})`,
      ];
    }),
  );
}

/** Fails when a series grows, or could not be judged while its thread still runs. */
export function passed(judged: readonly Judged[]): boolean {
  return judged.every(({ trend, ended }) => (trend === undefined ? ended : !trend.grows));
}
