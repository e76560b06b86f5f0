// What a feature costs, from rounds run in pairs (with it, without it, back to back) on a shared
// machine: each pair gives one cost, so load that drifts over minutes hits both sides of a pair alike;
// the median of the pairs is the cost, and a distribution-free confidence interval of that median
// says how far the rounds' spread lets the figure be trusted. A verdict is given only when the whole
// interval is on one side of the target; otherwise the benchmark says it cannot tell.

export interface PairedCost {
  /** Median cost over the pairs, as a fraction (0.02 is 2% more costly with the feature). */
  median: number;
  /** About 95% confidence interval of the median (order statistics: no assumption on the spread's shape). */
  low: number;
  high: number;
  /** Every pair's cost, in the order run. */
  pairs: number[];
}

/** `costs`: one figure per pair, positive when the feature costs. Fewer than 6 pairs give an interval from the lowest to the highest. */
export function pairedCost(costs: readonly number[]): PairedCost {
  const sorted = [...costs].sort((a, b) => a - b);
  const n = sorted.length;
  const middle = n % 2 === 1 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
  // The median lies between the k-th lowest and k-th highest pair with ~95% probability (binomial, normal approximation).
  const k = Math.max(0, Math.floor((n - 1.96 * Math.sqrt(n)) / 2));
  return { median: middle, low: sorted[k] ?? Number.NaN, high: sorted[n - 1 - k] ?? Number.NaN, pairs: [...costs] };
}

/** Met when the whole interval is under `target`, NOT met when it is all above, else the rounds cannot tell. */
export function costVerdict(cost: PairedCost, target: number): string {
  if (cost.high < target) return 'met';
  if (cost.low >= target) return 'NOT met';
  return `cannot tell (the rounds' interval ${percent(cost.low)} .. ${percent(cost.high)} straddles ${percent(target)})`;
}

export function percent(fraction: number): string {
  return `${(fraction * 100).toFixed(1)}%`;
}
