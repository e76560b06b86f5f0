// Every 10 s, what a soaked process holds: resident memory (anonymous and file-backed apart), file descriptors and threads from /proc
// (they are the process's, shared by its threads), and each thread's V8 heap and active handles from
// the role's /metrics (each thread pushes them there: src/metrics/thread-metrics.ts). A role run with
// its inspector open is sampled right after a full GC in every thread, its heaps read from the
// inspector: what stays, without the garbage V8 has not collected yet (inspector.ts).
import { readdirSync } from 'node:fs';
import { residentBytes, residentSplit, threadCount } from '../measure/proc-stat.js';
import type { InspectedProcess } from './inspector.js';
import { valuesByThread } from './metrics-text.js';
import type { GrowthBound, Sample } from './trend.js';

export interface SoakedProcess {
  pid: number;
  /** GET of the role's /metrics (certhub's with its admin key). */
  metrics(): Promise<Response>;
  /** The process's inspector, where the role opened it: heaps are then read after a full GC. */
  inspector?: InspectedProcess;
}

export type SeriesKind = 'memory' | 'count';

export interface Series {
  name: string;
  kind: SeriesKind;
  samples: Sample[];
}

const mebibyte = 1024 * 1024;

/**
 * The rise below which a series is not judged a leak (trend.ts): 2 MiB of memory is a malloc arena's
 * or V8 page's worth of granularity; 3 descriptors, threads or handles, a pooled connection or two
 * and a timer more that stay.
 */
export const bounds: Record<SeriesKind, GrowthBound> = { memory: { minRise: 2 * mebibyte }, count: { minRise: 3 } };

export class Sampler {
  private readonly series = new Map<string, Series>();
  private readonly startedAt = performance.now();

  constructor(private readonly target: SoakedProcess) {}

  /** Reads every figure once; throws when the process is gone or /metrics does not answer 200. */
  async sample(): Promise<void> {
    const seconds = (performance.now() - this.startedAt) / 1000;
    const { pid, inspector } = this.target;
    // First, so that RSS too is sampled without the heaps' garbage.
    const heapsAfterGc = await inspector?.heapsAfterFullGc();
    this.add('process RSS', 'memory', seconds, residentBytes(pid));
    // Which part of RSS moves: anonymous memory (malloc, V8, buffers) or the file-backed pages.
    const { anonymousBytes, fileBytes } = residentSplit(pid);
    this.add('process RSS anonymous', 'memory', seconds, anonymousBytes);
    this.add('process RSS file-backed', 'memory', seconds, fileBytes);
    this.add('process file descriptors', 'count', seconds, readdirSync(`/proc/${pid}/fd`).length);
    this.add('process threads', 'count', seconds, threadCount(pid));
    const response = await this.target.metrics();
    const text = await response.text();
    if (response.status !== 200) throw new Error(`/metrics answered ${response.status}: ${text.slice(0, 200)}`);
    if (heapsAfterGc !== undefined) for (const [thread, value] of heapsAfterGc) this.add(`${thread} heap after full GC`, 'memory', seconds, value);
    else for (const [thread, value] of valuesByThread(text, 'outpost_thread_heap_used_bytes')) this.add(`${thread} heap`, 'memory', seconds, value);
    for (const [thread, value] of valuesByThread(text, 'outpost_thread_active_resources')) this.add(`${thread} handles`, 'count', seconds, value);
  }

  all(): Series[] {
    return [...this.series.values()];
  }

  private add(name: string, kind: SeriesKind, seconds: number, value: number): void {
    let series = this.series.get(name);
    if (series === undefined) {
      series = { name, kind, samples: [] };
      this.series.set(name, series);
    }
    series.samples.push({ seconds, value });
  }
}
