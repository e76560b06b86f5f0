// Throughput of a transfer over parallel streams, measured where the link is full: after the warm-up
// (TCP's slow start) and until fewer than three streams are left moving. A stream or two left alone
// crawl (congestion windows that shrank while the link was shared, growing back only slowly into the
// freed capacity) or stall in loss recovery, and a figure that runs to the last byte counts that time
// as if the link were busy (on a 20 Mbit/s link an upload read 15.18 against iperf3's 19.10).
//
// Both ends of the window are where the byte counts are nearly exact. Bytes are counted as they reach
// the program, and a stream recovering from a loss holds back what arrived after the hole until the
// hole is filled: in the middle of a transfer the counts lag the wire by up to a round trip's worth of
// data. At the first byte nothing lags; when the window ends, all streams but two are complete. A
// warm-up of a fixed second would cut where the counts lag, and over a short transfer (10 MB at
// 100 Mbit/s lasts 0.8 s) that lag weighs more than slow start: the warm-up is a number of round trips.

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

/** Streams that keep the link full: with fewer left moving, the window ends. */
const streamsFillingTheLink = 3;
/** TCP's slow start reaches any window the link allows within a few round trips; this is ample. */
const warmUpRoundTrips = 10;
const maxWarmUpMs = 1000;

/** The warm-up for a path whose shortest idle round trip is `roundTripMs`. */
export function warmUpMs(roundTripMs: number): number {
  return Math.min(maxWarmUpMs, warmUpRoundTrips * roundTripMs);
}

/**
 * The window from the end of the warm-up (at most half-way to its end) to the moment fewer than three streams
 * were left moving (with three streams or fewer, the first stream's end), every stream's bytes
 * interpolated at both ends. Undefined when no stream moved bytes over a span of time (a transfer
 * that landed in one read).
 */
export function steadyWindow(streams: readonly StreamTimeline[], warmUp: number): SteadyWindow | undefined {
  const moving = streams.filter((stream) => stream.length > 0);
  if (moving.length === 0) return undefined;
  const firstByte = Math.min(...moving.map((stream) => stream[0]!.at));
  const ends = moving.map((stream) => stream.at(-1)!.at).sort((a, b) => a - b);
  const to = ends[Math.max(0, moving.length - streamsFillingTheLink)]!;
  if (to <= firstByte) return undefined;
  const from = firstByte + Math.min(warmUp, (to - firstByte) / 2);
  const bytes = moving.reduce((sum, stream) => sum + bytesBy(stream, to) - bytesBy(stream, from), 0);
  return { from, to, bytes };
}

/**
 * Goodput in bits per second over the steady window; a transfer too short to have one is taken
 * whole, from `startedAt` to its last byte.
 */
export function goodputBitsPerSecond(streams: readonly StreamTimeline[], startedAt: number, warmUp: number): number {
  const window = steadyWindow(streams, warmUp);
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
