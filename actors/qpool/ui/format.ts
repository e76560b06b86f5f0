// Human forms of the pool's figures. Counts are grouped the same way whatever the browser's locale,
// so a figure reads the same in a screenshot, a bug report and a test.
const counts = new Intl.NumberFormat('en-US');

export function formatCount(count: number): string {
  return counts.format(count);
}

export function formatPercent(percent: number): string {
  if (percent > 0 && percent < 0.1) return '<0.1%';
  return `${percent.toFixed(percent >= 10 ? 0 : 1)}%`;
}

/**
 * `3 h ago`, `12 min ago`, `just now`; `in 5 s` for a time ahead of this browser's clock (a skewed
 * clock on either machine), rather than a negative age.
 */
export function formatAge(thenMs: number, nowMs: number): string {
  const seconds = Math.round((nowMs - thenMs) / 1000);
  const size = Math.abs(seconds);
  if (size < 5) return 'just now';
  const span =
    size < 60 ? `${size} s` : size < 3600 ? `${Math.floor(size / 60)} min` : size < 172_800 ? `${Math.floor(size / 3600)} h` : `${Math.floor(size / 86_400)} d`;
  return seconds > 0 ? `${span} ago` : `in ${span}`;
}

/** `2025-05-01 12:34:56 UTC`: the exact time, for a tooltip. */
export function formatUtc(time: Date): string {
  return `${time.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
