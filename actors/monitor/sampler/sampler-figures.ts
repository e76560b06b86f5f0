// What the sampler's work costs, for the monitor's /metrics (src/metrics/): seconds per tick, apart
// for the cheap counters read every interval (CPU, memory) and the full scan made while someone
// watches (processes, containers, ports), and how many processes the last scan read. The thread's
// CPU share is outpost_thread_event_loop_utilization_ratio{thread="monitor/sampler"}.
import { family, type MetricFamily } from '../../../src/metrics/family.js';
import { LatencyHistogram } from '../../../src/metrics/histogram.js';

export class SamplerFigures {
  private readonly counters = new LatencyHistogram();
  private readonly scans = new LatencyHistogram();
  private processes: number | undefined;

  /** One reading of the counters took `seconds`. */
  countersRead(seconds: number): void {
    this.counters.observe(seconds);
  }

  /** One full scan took `seconds` and read `processes` processes. */
  scanned(seconds: number, processes: number): void {
    this.scans.observe(seconds);
    this.processes = processes;
  }

  families(): MetricFamily[] {
    return [
      {
        name: 'outpost_monitor_sample_duration_seconds',
        help: 'Time one sampler tick took, by kind: counters (CPU and memory, every interval) or scan (processes, containers and ports, while watched).',
        type: 'histogram',
        aggregator: 'sum',
        values: [
          ...this.counters.samples('outpost_monitor_sample_duration_seconds', { kind: 'counters' }),
          ...this.scans.samples('outpost_monitor_sample_duration_seconds', { kind: 'scan' }),
        ],
      },
      family(
        'outpost_monitor_processes_sampled',
        'Processes the last full scan read (none before the first scan).',
        'gauge',
        this.processes === undefined ? [] : [{ value: this.processes, labels: {} }],
      ),
    ];
  }
}
