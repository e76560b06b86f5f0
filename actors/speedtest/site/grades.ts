// How well a connection carries streaming, gaming and calls, from its latency under load, its jitter
// and its ping loss. The thresholds and their sources are in docs/netspeed.md ("Grades"): calls after
// ITU-T G.114 (one-way delay) and Cisco's voice guidance (jitter, loss); gaming and streaming after the
// guidance games and video services commonly publish. Pure: the page, the client and the server's
// saved results grade with these same numbers.

/**
 * A ping with no answer this long is lost. Over TCP a lost packet comes back as a late answer once it
 * is sent again; a second is several retransmission timeouts of an ordinary path (RFC 6298's least is
 * 200 ms on Linux), so what is counted lost is a path that drops over and over.
 */
export const pingLostAfterMs = 1000;

export type UseGrade = 'good' | 'fair' | 'poor';
export const uses = ['streaming', 'gaming', 'calls'] as const;
export type Use = (typeof uses)[number];
export type UseGrades = Record<Use, UseGrade>;

/** What a grade reads. */
export interface GradedFigures {
  /** The worse median round trip under load (download or upload), in ms (gradedLatencyMs). */
  loadedLatencyMs: number;
  jitterMs: number;
  /** Pings lost, in percent of those sent. */
  lossPercent: number;
}

/** The most each figure may be for a grade: within every `good` limit is good, within every `fair` one fair. */
export interface UseLimits {
  loadedLatencyMs: number;
  jitterMs: number;
  lossPercent: number;
}

export const gradeLimits: Record<Use, Record<Exclude<UseGrade, 'poor'>, UseLimits>> = {
  // Buffered video rides out delay and jitter; loss costs it throughput and then resolution.
  streaming: {
    good: { loadedLatencyMs: 300, jitterMs: 100, lossPercent: 1 },
    fair: { loadedLatencyMs: 1000, jitterMs: 300, lossPercent: 5 },
  },
  gaming: {
    good: { loadedLatencyMs: 50, jitterMs: 10, lossPercent: 1 },
    fair: { loadedLatencyMs: 100, jitterMs: 30, lossPercent: 2 },
  },
  // G.114: one-way delay up to 150 ms suits most calls, past 400 ms none; a round trip is twice it.
  calls: {
    good: { loadedLatencyMs: 300, jitterMs: 30, lossPercent: 1 },
    fair: { loadedLatencyMs: 800, jitterMs: 50, lossPercent: 3 },
  },
};

function within(figures: GradedFigures, limits: UseLimits): boolean {
  return figures.loadedLatencyMs <= limits.loadedLatencyMs && figures.jitterMs <= limits.jitterMs && figures.lossPercent <= limits.lossPercent;
}

export function gradeUse(use: Use, figures: GradedFigures): UseGrade {
  const limits = gradeLimits[use];
  if (within(figures, limits.good)) return 'good';
  return within(figures, limits.fair) ? 'fair' : 'poor';
}

export function gradeUses(figures: GradedFigures): UseGrades {
  return { streaming: gradeUse('streaming', figures), gaming: gradeUse('gaming', figures), calls: gradeUse('calls', figures) };
}

/**
 * The latency a grade reads: the worse of the loaded medians. `null` is a transfer during which no
 * ping was answered, the worst there is (as the bufferbloat grade reads it); with no loaded figure
 * given at all, the idle median.
 */
export function gradedLatencyMs(idleMs: number, loadedMs: readonly (number | null)[]): number {
  if (loadedMs.length === 0) return idleMs;
  return Math.max(...loadedMs.map((value) => value ?? Number.POSITIVE_INFINITY));
}

/** Lost pings in percent of those sent, to one decimal. */
export function lossPercent(sent: number, lost: number): number {
  return sent === 0 ? 0 : Math.round((lost / sent) * 1000) / 10;
}
