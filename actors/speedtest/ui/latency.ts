// Summaries of round-trip samples (ms).

export interface LatencySummary {
  meanMs: number;
  minMs: number;
  medianMs: number;
  /** Mean absolute difference of consecutive samples. */
  jitterMs: number;
}

export interface LoadedLatency {
  medianMs: number;
  /** The loaded median over the idle one: how much the link's queues grow under load (bufferbloat). */
  increaseMs: number;
}

export function summarizeLatency(samples: readonly number[]): LatencySummary {
  if (samples.length === 0) throw new Error('no ping was answered');
  let differences = 0;
  for (let index = 1; index < samples.length; index += 1) differences += Math.abs((samples[index] ?? 0) - (samples[index - 1] ?? 0));
  return {
    meanMs: samples.reduce((sum, ms) => sum + ms, 0) / samples.length,
    minMs: Math.min(...samples),
    medianMs: median(samples),
    jitterMs: samples.length > 1 ? differences / (samples.length - 1) : 0,
  };
}

/** Undefined when no ping came back during the load (a link so saturated that is its own answer). */
export function loadedLatency(samples: readonly number[], idle: LatencySummary): LoadedLatency | undefined {
  if (samples.length === 0) return undefined;
  const medianMs = median(samples);
  return { medianMs, increaseMs: medianMs - idle.medianMs };
}

function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}
