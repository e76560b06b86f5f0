// Memory figures from the operating system's own accounting, parsed from its text output.

export interface MemoryFigures {
  totalBytes: number;
  usedBytes: number;
  availableBytes: number;
  swap: { totalBytes: number; usedBytes: number } | null;
  breakdown: { activeBytes: number; wiredBytes: number; compressedBytes: number } | null;
}

/**
 * Linux /proc/meminfo. Used = MemTotal - MemAvailable: what programs hold, page cache excluded (the
 * kernel's own estimate of what it can hand out without swapping, as `free` reports it).
 */
export function parseMeminfo(text: string): MemoryFigures {
  const kib = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^(\w+(?:\(\w+\))?):\s+(\d+)/.exec(line);
    if (match !== null) kib.set(match[1]!, Number(match[2]));
  }
  const bytes = (name: string) => {
    const value = kib.get(name);
    if (value === undefined) throw new Error(`/proc/meminfo has no ${name}`);
    return value * 1024;
  };
  const totalBytes = bytes('MemTotal');
  const availableBytes = bytes('MemAvailable');
  const swapTotal = bytes('SwapTotal');
  return {
    totalBytes,
    availableBytes,
    usedBytes: totalBytes - availableBytes,
    swap: swapTotal > 0 ? { totalBytes: swapTotal, usedBytes: swapTotal - bytes('SwapFree') } : null,
    breakdown: null,
  };
}

/**
 * macOS `vm_stat` plus the total from `sysctl -n hw.memsize`. Used = app (active) + wired + compressed,
 * as Activity Monitor counts it: file cache (inactive, speculative, purgeable) excluded.
 */
export function parseVmStat(text: string, totalBytes: number): MemoryFigures {
  const pageSize = Number(/page size of (\d+) bytes/.exec(text)?.[1] ?? Number.NaN);
  if (!Number.isFinite(pageSize)) throw new Error('vm_stat output has no page size');
  const pages = (label: string) => {
    const match = new RegExp(`^${label}:\\s+(\\d+)\\.?$`, 'm').exec(text);
    if (match === null) throw new Error(`vm_stat output has no "${label}"`);
    return Number(match[1]) * pageSize;
  };
  const activeBytes = pages('Pages active');
  const wiredBytes = pages('Pages wired down');
  const compressedBytes = pages('Pages occupied by compressor');
  const usedBytes = activeBytes + wiredBytes + compressedBytes;
  return {
    totalBytes,
    usedBytes,
    availableBytes: Math.max(0, totalBytes - usedBytes),
    swap: null,
    breakdown: { activeBytes, wiredBytes, compressedBytes },
  };
}

/** macOS `sysctl -n vm.swapusage`: `total = 2048.00M  used = 1024.25M  free = 1023.75M  (encrypted)`. */
export function parseSwapUsage(text: string): { totalBytes: number; usedBytes: number } | null {
  const size = (name: string) => {
    const match = new RegExp(`${name} = ([\\d.]+)([KMG])`).exec(text);
    if (match === null) return 0;
    const unit = { K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[match[2] as 'K' | 'M' | 'G'];
    return Math.round(Number(match[1]) * unit);
  };
  const totalBytes = size('total');
  return totalBytes > 0 ? { totalBytes, usedBytes: size('used') } : null;
}
