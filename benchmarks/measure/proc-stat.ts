// CPU time and memory of a process, and the machine's busy time, from /proc, for benchmarks that
// compare servers' own cost.
import { readdirSync, readFileSync } from 'node:fs';

// USER_HZ: the unit of utime/stime in /proc/<pid>/stat and of /proc/stat; 100 on every Linux architecture Node runs on.
export const ticksPerSecond = 100;

/** CPU seconds used so far by `pid`, all its threads included. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/** A numeric line of /proc/<pid>/status (`Threads`, `VmRSS` in kB, ...). */
function statusField(pid: number, name: string): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
}

export function residentBytes(pid: number): number {
  return statusField(pid, 'VmRSS') * 1024;
}

/** The highest resident size the process has had. */
export function peakResidentBytes(pid: number): number {
  return statusField(pid, 'VmHWM') * 1024;
}

/**
 * Resident memory split by what backs it (/proc/<pid>/smaps_rollup, kB): anonymous (malloc arenas, V8
 * heaps, thread stacks, buffers) and file-backed (the node binary, shared libraries, mapped files).
 */
export function residentSplit(pid: number): { anonymousBytes: number; fileBytes: number } {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? 0) * 1024;
  const anonymousBytes = field('Anonymous');
  return { anonymousBytes, fileBytes: field('Rss') - anonymousBytes };
}

export function threadCount(pid: number): number {
  return statusField(pid, 'Threads');
}

export function processCount(): number {
  return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).length;
}

/** Busy CPU seconds of the whole machine so far, every core (user, nice, system, irq, softirq, steal). */
export function machineBusySeconds(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
  return (user + nice + system + irq + softirq + steal) / ticksPerSecond;
}

/**
 * CPU seconds used so far by `pid`, its live descendants and every process one of them has waited
 * for (/proc's cutime and cstime): all of a tree that reaps its own ended members, as Chromium's
 * zygote reaps the renderers it forked, whose time no outside parent would ever see.
 */
export function processTreeTotalCpuSeconds(pid: number): number {
  let stat: string;
  let tasks: string[];
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0; // The process has ended: its parent's cutime and cstime count it.
  }
  // Each thread lists the children it started: Chromium starts its zygotes from other threads than its first.
  const children = tasks.flatMap((task) => {
    try {
      return readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
        .trim()
        .split(' ')
        .filter((child) => child !== '');
    } catch {
      return []; // The thread has ended.
    }
  });
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / ticksPerSecond;
  return children.reduce((sum, child) => sum + processTreeTotalCpuSeconds(Number(child)), own);
}

/** CPU seconds used so far by `pid` and its live children (nginx's master and its workers). */
export function processTreeCpuSeconds(pid: number): number {
  let children: string[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(' ')
      .filter((child) => child !== '');
  } catch {
    return Number.NaN; // The process has ended.
  }
  return children.reduce((sum, child) => sum + processTreeCpuSeconds(Number(child)), cpuSeconds(pid));
}
