// The one place that decides how alarming a usage figure is; every bar shows it through its
// `data-level` attribute, which style.css turns into green, yellow or red.
export type UsageLevel = 'low' | 'medium' | 'high';

/** Green below 50%, yellow from 50% to 80%, red above 80%. */
export function usageLevel(percent: number): UsageLevel {
  if (percent > 80) return 'high';
  if (percent >= 50) return 'medium';
  return 'low';
}
