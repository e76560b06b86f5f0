// Provider bytes become 1024-bit values: concatenated blocks are sliced into 128-byte values, the
// remainder is discarded (never padded), and each value becomes one JSON line for the diode.
import type { ValueSource } from '../values/record.js';

export const valueBytes = 128;

export interface ValueBatch {
  /** JSON lines, each newline terminated: {"value","timestamp","source"}. */
  lines: string;
  count: number;
  /** Bytes left over after the last whole value. */
  discardedBytes: number;
}

export function sliceValues(bytes: Uint8Array, source: ValueSource, receivedAt: Date): ValueBatch {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = Math.floor(buffer.length / valueBytes);
  const timestamp = receivedAt.toISOString();
  // Hex and an ISO timestamp need no JSON escaping, so the lines are written directly.
  const suffix = `","timestamp":"${timestamp}","source":"${source}"}\n`;
  const lines: string[] = new Array<string>(count);
  for (let index = 0; index < count; index++) {
    lines[index] = `{"value":"${buffer.toString('hex', index * valueBytes, (index + 1) * valueBytes)}${suffix}`;
  }
  return { lines: lines.join(''), count, discardedBytes: buffer.length - count * valueBytes };
}
