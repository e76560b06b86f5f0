// Human forms of the figures. Rates are decimal megabits (10^6 bits) per second, as every speed test
// and every ISP counts them.

export function megabits(bitsPerSecond: number): number {
  return bitsPerSecond / 1e6;
}

/** Mbps with two decimals: `943.21`. */
export function formatMbps(bitsPerSecond: number): string {
  return megabits(bitsPerSecond).toFixed(2);
}

/** Milliseconds with one decimal: `12.3`. */
export function formatMs(ms: number): string {
  return ms.toFixed(1);
}

/** A change in ms with its sign: `+11.9 ms`, `−0.3 ms`, `±0.0 ms`. */
export function formatIncrease(ms: number): string {
  const tenths = Math.round(ms * 10);
  const sign = tenths > 0 ? '+' : tenths < 0 ? '−' : '±';
  return `${sign}${(Math.abs(tenths) / 10).toFixed(1)} ms`;
}

/** The gauge's moving figure: four or five significant digits, so it does not jitter in width. */
export function formatGaugeValue(value: number): string {
  if (value >= 1000) return value.toFixed(0);
  if (value >= 100) return value.toFixed(1);
  return value.toFixed(2);
}
