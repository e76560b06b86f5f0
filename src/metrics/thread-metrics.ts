// A thread's figures, pushed to its role's fronts every interval (topic.ts): what every thread
// reports (heap, event-loop use and lag), what its actor registers in its own prom-client registry,
// and what it counts by hand on a hot path (sources). Pushing on a timer, not on demand, is what
// keeps a scrape from costing any actor a message or a turn of its event loop; a push carries only
// the families that changed (changed-families.ts).
import { getHeapStatistics } from 'node:v8';
import type { Registry } from 'prom-client';
import { ChangedFamilies } from './changed-families.js';
import { family, withLabels, type Labels, type MetricFamily } from './family.js';
import { promClient } from './prom-client-parts.js';

export type FigureSource = () => MetricFamily[];

/** What an actor sees of its thread's metrics (ActorContext.metrics). */
export interface ThreadMetrics {
  /** False when the host config turned metrics off: hot paths then count nothing. */
  readonly enabled: boolean;
  /** The actor's own prom-client metrics (gauges with `collect`, counters); read at each push. */
  readonly registry: Registry;
  /** Figures counted by hand (a front's requests), read at each push. */
  addSource(source: FigureSource): void;
}

export class ThreadMetricsPusher implements ThreadMetrics {
  private ownRegistry: Registry | undefined;
  private readonly sources: FigureSource[] = [];
  private stopPushing: () => void = () => undefined;
  private lastLoop = performance.eventLoopUtilization();
  private lagSeconds = 0;
  private readonly changes = new ChangedFamilies();

  constructor(
    private readonly labels: { thread: string; role: string },
    private readonly intervalMs: number,
    /** Receives the families that changed since the last push (all of them at the first). */
    private readonly push: (families: MetricFamily[]) => void,
  ) {}

  get registry(): Registry {
    // prom-client is loaded by the threads that register metrics of their own, not by every thread
    // (`outpost demo` starts twelve at once): see prom-client-parts.ts.
    this.ownRegistry ??= new (promClient().Registry)();
    return this.ownRegistry;
  }

  get enabled(): boolean {
    return this.intervalMs > 0;
  }

  addSource(source: FigureSource): void {
    this.sources.push(source);
  }

  start(): void {
    if (!this.enabled) return;
    void this.pushNow();
    this.stopPushing = atEachPush(this.intervalMs, (lateMs) => {
      // How late the timer fired: the event-loop lag this thread had at that moment, measured
      // without a timer of its own (a delay monitor wakes every thread many times a second).
      this.lagSeconds = lateMs / 1000;
      return this.pushNow();
    });
  }

  stop(): void {
    this.stopPushing();
  }

  async pushNow(): Promise<void> {
    const loop = performance.eventLoopUtilization(this.lastLoop);
    this.lastLoop = performance.eventLoopUtilization();
    const own = [
      ...threadResourceFamilies(),
      family(
        'outpost_thread_event_loop_utilization_ratio',
        "Share of the last interval the thread's event loop was busy (its CPU use, for one thread).",
        'gauge',
        [{ value: loop.utilization, labels: {} }],
      ),
      family('outpost_thread_event_loop_lag_seconds', "How late the thread's last metrics timer fired.", 'gauge', [{ value: this.lagSeconds, labels: {} }]),
    ];
    const registered = this.ownRegistry === undefined ? [] : (await this.ownRegistry.getMetricsAsJSON()).map(plain);
    this.push(withLabels(this.changes.changed([...own, ...registered, ...this.sources.flatMap((source) => source())]), this.labels));
  }
}

/**
 * Runs `tick` at each multiple of `intervalMs` on the wall clock, the next one once its promise has
 * settled; `tick` is told how many milliseconds late its timer fired. Every thread of the process
 * (and the supervisor) pushes at the same instants, so a scrape reads every thread's figures as of
 * one moment (a sum over threads adds figures of the same second), and the supervisor takes the
 * pushes together: idle, with 1 s pushes, it woke 3.9 times a second instead of 8.7. Returns the
 * stop; the timer keeps no thread alive.
 */
export function atEachPush(intervalMs: number, tick: (lateMs: number) => void | Promise<void>): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const schedule = () => {
    if (stopped) return;
    const delay = untilNextPush(intervalMs);
    const due = performance.now() + delay;
    timer = setTimeout(() => {
      void Promise.resolve(tick(Math.max(0, performance.now() - due))).finally(schedule);
    }, delay);
    timer.unref();
  };
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** Milliseconds to the next multiple of `intervalMs` on the wall clock. */
export function untilNextPush(intervalMs: number): number {
  return intervalMs - (Date.now() % intervalMs);
}

/**
 * What one thread holds: its V8 heap, and the resources keeping its event loop alive (sockets,
 * timers, file operations in flight: process.getActiveResourcesInfo() is per thread). A soak reads
 * both per thread to tell a leak from the process's shared memory growing.
 */
export function threadResourceFamilies(): MetricFamily[] {
  return [
    // V8's own figure, as process.memoryUsage().heapUsed gives it, without the resident size that call
    // also reads (55 ms of a loaded cert front's 160 ms of pushes over 20 s, profiled).
    family('outpost_thread_heap_used_bytes', 'V8 heap in use by this thread.', 'gauge', [{ value: getHeapStatistics().used_heap_size, labels: {} }]),
    family(
      'outpost_thread_active_resources',
      "Handles and requests keeping this thread's event loop alive (sockets, timers, file operations in flight).",
      'gauge',
      [{ value: process.getActiveResourcesInfo().length, labels: {} }],
    ),
  ];
}

type RegistryFamily = Awaited<ReturnType<Registry['getMetricsAsJSON']>>[number];

/** A family of the actor's registry as it crosses threads: no exemplar slots, and only the kinds it may register. */
function plain(entry: RegistryFamily): MetricFamily {
  const type = String(entry.type);
  if (type !== 'counter' && type !== 'gauge' && type !== 'histogram')
    throw new Error(`metric ${entry.name}: a ${type} cannot be merged across threads; use a histogram`);
  const values = entry.values.map(({ value, labels, ...rest }) => {
    const metricName = (rest as { metricName?: string }).metricName;
    return { value, labels: labels as Labels, ...(metricName === undefined ? {} : { metricName }) };
  });
  return { name: entry.name, help: entry.help, type, aggregator: entry.aggregator === 'max' ? 'max' : 'sum', values };
}
