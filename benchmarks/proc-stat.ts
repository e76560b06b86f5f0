// CPU time and memory of a process from /proc, for benchmarks that compare servers' own cost.
import { readdirSync, readFileSync } from 'node:fs';

// USER_HZ: the unit of utime/stime in /proc/<pid>/stat; 100 on every Linux architecture Node runs on.
const ticksPerSecond = 100;

/** CPU seconds used so far by `pid`, all its threads included. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

export function residentBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
}

export function processCount(): number {
  return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).length;
}
