// The threads of a process from /proc/<pid>/task: which is which (start order, bytes read), how long
// each ran or waited for a core, and what it is doing now. A thread may end between listing and
// reading: its figures are then left out or NaN.
import { readdirSync, readFileSync } from 'node:fs';

export interface ThreadSample {
  tid: string;
  /** Start time, in clock ticks after boot: threads made later have larger values. */
  start: number;
  /** Bytes read so far through read() and the like (pipes included). */
  rchar: number;
}

export function threads(pid: number): ThreadSample[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const io = readFileSync(`/proc/${pid}/task/${tid}/io`, 'utf8');
      return [{ tid, start: Number(fields[19]), rchar: Number(/^rchar: (\d+)/m.exec(io)?.[1] ?? 0) }];
    } catch {
      return []; // The thread ended meanwhile.
    }
  });
}

/** Oldest first; threads started in the same tick by thread id. */
export function inStartOrder(samples: ThreadSample[]): ThreadSample[] {
  return [...samples].sort((a, b) => a.start - b.start || Number(a.tid) - Number(b.tid));
}

/** Seconds a thread has run on a core, and waited in the run queue for one. */
export function schedStat(pid: number, tid: string): { cpu: number; wait: number } {
  try {
    const [cpu = 0, wait = 0] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
    return { cpu: cpu / 1e9, wait: wait / 1e9 };
  } catch {
    return { cpu: Number.NaN, wait: Number.NaN };
  }
}

/** The thread's state letter (R running, S sleeping, D asleep on the disk, ...); '?' once it has ended. */
export function threadState(pid: number, tid: string): string {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2);
  } catch {
    return '?';
  }
}
