// CPU usage from cumulative per-core time counters (os.cpus(), which reads /proc/stat on Linux and
// host_processor_info on macOS): busy share = busy time delta / total time delta between two reads.

export interface CoreTimes {
  user: number;
  nice: number;
  sys: number;
  idle: number;
  irq: number;
}

export interface CpuUsage {
  percent: number;
  perCore: number[];
}

export function cpuUsage(previous: readonly CoreTimes[], current: readonly CoreTimes[]): CpuUsage {
  let busyTotal = 0;
  let allTotal = 0;
  const perCore = current.map((now, index) => {
    const before = previous[index];
    if (before === undefined) return 0;
    const total = sum(now) - sum(before);
    const busy = total - (now.idle - before.idle);
    busyTotal += busy;
    allTotal += total;
    return percentOf(busy, total);
  });
  return { percent: percentOf(busyTotal, allTotal), perCore };
}

function sum(times: CoreTimes): number {
  return times.user + times.nice + times.sys + times.idle + times.irq;
}

function percentOf(part: number, whole: number): number {
  if (whole <= 0) return 0;
  return Math.min(100, Math.max(0, Math.round((part / whole) * 1000) / 10));
}

/**
 * Per-core times from /proc/stat's `cpuN user nice system idle iowait irq …` lines, the fields
 * os.cpus() takes from the same lines (libuv leaves iowait, softirq and steal out). Read directly, a
 * tick costs one file: os.cpus() also reads /proc/cpuinfo and every core's cpufreq file for the model
 * and speed, which the sampler already knows or does not show.
 */
export function parseProcStatCores(text: string): CoreTimes[] {
  const cores: CoreTimes[] = [];
  for (const line of text.split('\n')) {
    if (!/^cpu\d/.test(line)) continue;
    const [, user = 0, nice = 0, sys = 0, idle = 0, , irq = 0] = line.split(/\s+/).map(Number);
    cores.push({ user, nice, sys, idle, irq });
  }
  return cores;
}
