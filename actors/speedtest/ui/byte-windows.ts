// Bytes counted in short windows from the start of a phase: the live figure is the latest second, the
// result leaves out the warm-up windows. Times are performance.now() milliseconds.
import { liveWindows, windowMs } from './method.js';

export class ByteWindows {
  private readonly windows: Float64Array;

  constructor(
    private readonly startedAt: number,
    private readonly phaseMs: number,
  ) {
    this.windows = new Float64Array(Math.ceil(phaseMs / windowMs));
  }

  /** Bytes that arrived at `at`; bytes after the phase's end (aborted requests draining) do not count. */
  add(bytes: number, at = performance.now()): void {
    const index = Math.floor((at - this.startedAt) / windowMs);
    if (index >= 0 && index < this.windows.length) this.windows[index] = (this.windows[index] ?? 0) + bytes;
  }

  /** Bits per second over the latest complete windows, or so far while the first is still open. */
  liveBitsPerSecond(at = performance.now()): number {
    const elapsedMs = Math.min(at - this.startedAt, this.phaseMs);
    const complete = Math.min(Math.floor(elapsedMs / windowMs), this.windows.length);
    if (complete === 0) return elapsedMs > 0 ? bitsPerSecond(this.windows[0] ?? 0, elapsedMs) : 0;
    const first = Math.max(0, complete - liveWindows);
    return bitsPerSecond(this.sum(first, complete), (complete - first) * windowMs);
  }

  /** Bits per second over the whole phase after `warmupMs`; call it once the phase has ended. */
  steadyBitsPerSecond(warmupMs: number): number {
    const skipped = Math.min(Math.ceil(warmupMs / windowMs), this.windows.length - 1);
    return bitsPerSecond(this.sum(skipped, this.windows.length), this.phaseMs - skipped * windowMs);
  }

  private sum(from: number, to: number): number {
    let bytes = 0;
    for (let index = from; index < to; index += 1) bytes += this.windows[index] ?? 0;
    return bytes;
  }
}

function bitsPerSecond(bytes: number, ms: number): number {
  return (bytes * 8 * 1000) / ms;
}
