// The numbers of the measuring method, in one place, with the reason for each
// (LibreSpeed's, Cloudflare's speed test's and iperf3's lessons; docs/netspeed.md, "How it measures").

/** Parallel streams for download and upload: one TCP stream rarely fills a long fat pipe. */
export const streamCount = 6;

/** Streams start this far apart, so their slow starts do not collide in one burst. */
export const streamStaggerMs = 200;

/** Bytes are counted in windows this long; the live figure and the warm-up are whole windows. */
export const windowMs = 200;

/** The live figure is the rate over this many of the latest complete windows (one second). */
export const liveWindows = 5;

/**
 * TCP slow start and token-bucket shapers distort the first second of a transfer, so it is left out
 * of the result; a short phase (tests run 2 s phases) keeps at least three quarters of its time.
 */
export function warmupMs(phaseMs: number): number {
  return Math.min(1000, Math.floor(phaseMs / 4 / windowMs) * windowMs);
}

/** One download request: large enough that request overhead vanishes, capped by what the server allows. */
export function downloadRequestBytes(maxDownloadBytes: number): number {
  return Math.min(25_000_000, maxDownloadBytes);
}

/**
 * One upload body. Upload is counted by the server for requests that complete, so a body must be small
 * enough that each stream completes a few within a phase on an ordinary uplink (4 MB is 2 s at 16 Mbps
 * per stream).
 */
export function uploadBodyBytes(maxUploadBytes: number): number {
  return Math.min(4_000_000, maxUploadBytes);
}

/** Pings start at most this often: enough samples for a median, too few to load the link themselves. */
export const pingSpacingMs = 100;
