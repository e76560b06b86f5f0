// Throughput of a transfer over parallel streams, measured where the link is full: after the warm-up
// (TCP slow start, a shaper's burst, the client's own start-up) and before the first stream ends.
// Once one stream has finished, the rest no longer load the link as all of them did, and a stream
// stalled in loss recovery at the end (seen on a 20 Mbit/s link: 15.18 read against iperf3's 19.10)
// leaves the link idle while a figure that ran to the last byte keeps counting time.

/** Bytes one stream had moved by a moment. */
export interface ByteSample {
  /** Milliseconds, on one clock for every stream of a transfer. */
  at: number;
  /** Bytes this stream had moved by then. */
  total: number;
}

/** One stream's samples, in time order: each taken when bytes landed, fine enough to interpolate. */
export type StreamTimeline = readonly ByteSample[];

export interface SteadyWindow {
  /** Milliseconds, on the streams' clock. */
  from: number;
  to: number;
  /** Bytes every stream together moved between `from` and `to`. */
  bytes: number;
}

/** The warm-up left out: one second, or half the time all streams ran when that is shorter. */
export const warmUpMs = 1000;

/**
 * The window from the end of the warm-up to the moment the first stream finished, with every
 * stream's bytes interpolated at both ends. Undefined when no stream moved bytes over a span of time
 * (a transfer that landed in one read).
 */
export function steadyWindow(streams: readonly StreamTimeline[]): SteadyWindow | undefined {
  const moving = streams.filter((stream) => stream.length > 0);
  if (moving.length === 0) return undefined;
  const firstByte = Math.min(...moving.map((stream) => stream[0]!.at));
  const firstFinish = Math.min(...moving.map((stream) => stream.at(-1)!.at));
  if (firstFinish <= firstByte) return undefined;
  const from = firstByte + Math.min(warmUpMs, (firstFinish - firstByte) / 2);
  const to = firstFinish;
  const bytes = moving.reduce((sum, stream) => sum + bytesBy(stream, to) - bytesBy(stream, from), 0);
  return { from, to, bytes };
}

/**
 * Goodput in bits per second over the steady window; a transfer too short to have one is taken
 * whole, from `startedAt` to its last byte.
 */
export function goodputBitsPerSecond(streams: readonly StreamTimeline[], startedAt: number): number {
  const window = steadyWindow(streams);
  if (window !== undefined) return (window.bytes * 8) / ((window.to - window.from) / 1000);
  const ends = streams.flatMap((stream) => stream.at(-1) ?? []);
  const elapsed = Math.max(...ends.map((end) => end.at), startedAt) - startedAt;
  const total = ends.reduce((sum, end) => sum + end.total, 0);
  return elapsed > 0 ? (total * 8) / (elapsed / 1000) : 0;
}

/** A stream's bytes at `at`: linear between the samples around it, none before the first. */
export function bytesBy(stream: StreamTimeline, at: number): number {
  if (stream.length === 0 || at < stream[0]!.at) return 0;
  const last = stream.at(-1)!;
  if (at >= last.at) return last.total;
  // The last sample at or before `at`; the one after it exists since `at` is before the last.
  let low = 0;
  let high = stream.length - 1;
  while (high - low > 1) {
    const middle = (low + high) >> 1;
    if (stream[middle]!.at <= at) low = middle;
    else high = middle;
  }
  const before = stream[low]!;
  const after = stream[high]!;
  return before.total + ((after.total - before.total) * (at - before.at)) / (after.at - before.at);
}
