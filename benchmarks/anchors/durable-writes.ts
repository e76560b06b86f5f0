// Anchors for a durable store, measured on the disk under test: what the spec's design (the whole hot
// file replaced atomically per change) and the floor of any durable commit (one fdatasync'd append)
// cost, one operation after another for a fixed time.
import { randomBytes } from 'node:crypto';
import { closeSync, fdatasyncSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { percentile } from '../harness.js';

export interface OpRate {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** The file of `bytes` in `dir` replaced atomically (tmp, fsync, rename, fsync of the folder), again and again for `forMs`. */
export function atomicRewrites(dir: string, bytes: number, forMs: number): OpRate {
  const content = randomBytes(bytes);
  const target = join(dir, 'spec-design.hot');
  return timedLoop(forMs, () => {
    const temporary = `${target}.tmp`;
    const fd = openSync(temporary, 'w', 0o600);
    for (let offset = 0; offset < content.length; ) offset += writeSync(fd, content, offset);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temporary, target);
    const folder = openSync(dir, 'r');
    fsyncSync(folder);
    closeSync(folder);
  });
}

/** One fdatasync'd append of `bytes` after another for `forMs`: the most a commit can cost less than. */
export function fdatasyncAppends(dir: string, bytes: number, forMs: number): OpRate {
  const record = randomBytes(bytes);
  const fd = openSync(join(dir, 'bare-append.journal'), 'a', 0o600);
  try {
    return timedLoop(forMs, () => {
      writeSync(fd, record);
      fdatasyncSync(fd);
    });
  } finally {
    closeSync(fd);
  }
}

function timedLoop(forMs: number, operation: () => void): OpRate {
  const latencies: number[] = [];
  const startedAt = performance.now();
  while (performance.now() - startedAt < forMs) {
    const at = performance.now();
    operation();
    latencies.push(performance.now() - at);
  }
  return { perSecond: latencies.length / ((performance.now() - startedAt) / 1000), p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
}
