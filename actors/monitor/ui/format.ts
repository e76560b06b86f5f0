// Human forms of the numbers the dashboard shows. Memory is in binary units (KiB, MiB, GiB) because
// that is how the kernel and every process tool count it.
const binaryUnits = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const;

export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < binaryUnits.length - 1) {
    value /= 1024;
    unit += 1;
  }
  // Three significant figures at most: 3.4 GiB, 12.7 MiB, 512 KiB.
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${value.toFixed(digits)} ${binaryUnits[unit]}`;
}

export function formatPercent(percent: number): string {
  return `${percent.toFixed(percent >= 100 ? 0 : 1)}%`;
}

export function formatLoad(load: number): string {
  return load.toFixed(2);
}

/** `3d 4h 12m`, `4h 12m`, `12m`: minutes are enough for how long a machine has been up. */
export function formatUptime(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const parts = [];
  if (days > 0) parts.push(`${days}d`);
  if (days > 0 || hours > 0) parts.push(`${hours}h`);
  parts.push(`${minutes % 60}m`);
  return parts.join(' ');
}

/** Local wall-clock time `HH:MM:SS` of a timestamp in seconds since the epoch. */
export function formatClock(epochSeconds: number): string {
  const time = new Date(epochSeconds * 1000);
  return [time.getHours(), time.getMinutes(), time.getSeconds()].map((part) => String(part).padStart(2, '0')).join(':');
}

/** A rate in bytes a second: `12.7 MiB/s`. */
export function formatRate(bytesPerSecond: number): string {
  return `${formatBytes(bytesPerSecond)}/s`;
}

/** `54.0 °C`. */
export function formatCelsius(celsius: number): string {
  return `${celsius.toFixed(1)} °C`;
}
