// Upload as the server counted it. Each completed request reports its bytes and when (server clock)
// they arrived; streams overlap, and the requests still in flight when the phase ends are aborted and
// reported by no one. So the rate is taken over the span in which every stream's bytes are known:
// after the last stream's first request began (and after the warm-up), until the first stream's last
// completed request ended. Bytes of a request that straddles an edge count in proportion.
import type { UploadResult } from '../browser.js';

export interface LandedUpload {
  stream: number;
  result: UploadResult;
}

interface Span {
  start: number;
  end: number;
}

/**
 * Bits per second over the fully reported span, or undefined when that span is shorter than
 * `minimumSeconds` (a slow uplink completes too few requests; the caller falls back to its own count).
 */
export function landedBitsPerSecond(uploads: readonly LandedUpload[], streamCount: number, warmupSeconds: number, minimumSeconds: number): number | undefined {
  const streams = Array.from({ length: streamCount }, (_, stream) => uploads.filter((upload) => upload.stream === stream).map(({ result }) => spanOf(result)));
  if (streams.some((spans) => spans.length === 0)) return undefined;
  const starts = streams.map((spans) => Math.min(...spans.map((span) => span.start)));
  const start = Math.max(...starts, Math.min(...starts) + warmupSeconds);
  const end = Math.min(...streams.map((spans) => Math.max(...spans.map((span) => span.end))));
  if (end - start < minimumSeconds) return undefined;
  let bytes = 0;
  for (const { result } of uploads) bytes += result.size * overlapShare(spanOf(result), start, end);
  return (bytes * 8) / (end - start);
}

function spanOf(result: UploadResult): Span {
  return { start: result.timestamp - result.duration, end: result.timestamp };
}

/** The part of `span` inside [start, end], as a share of the span. */
function overlapShare(span: Span, start: number, end: number): number {
  const length = span.end - span.start;
  if (length <= 0) return span.end >= start && span.end <= end ? 1 : 0;
  return Math.max(0, Math.min(span.end, end) - Math.max(span.start, start)) / length;
}
