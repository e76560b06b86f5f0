// Runs a fast-check property inside an ava test: the property asserts with node:assert (a throw is
// what fast-check shrinks on), and the test reports the shrunk counterexample as its failure.
import type { ExecutionContext } from 'ava';
import fc from 'fast-check';

/** Fixed, so a failure replays the same inputs on every machine. */
export const fuzzSeed = 2028;

function report<Ts>(details: fc.RunDetails<Ts>): string | undefined {
  if (!details.failed) return undefined;
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  return `${fc.defaultReportMessage(details) ?? 'the property failed'}\n${cause}`;
}

export function checkProperty<Ts extends [unknown, ...unknown[]]>(t: ExecutionContext, property: fc.IProperty<Ts>, numRuns: number): void {
  const details = fc.check(property, { seed: fuzzSeed, numRuns });
  t.false(details.failed, report(details));
}

/**
 * `shrink: false` for a property whose run is long and exhaustive already: shrinking would repeat it
 * for minutes. `seed` for a property checked in shards side by side, one seed a shard.
 */
export async function checkAsyncProperty<Ts extends [unknown, ...unknown[]]>(
  t: ExecutionContext,
  property: fc.IAsyncProperty<Ts>,
  numRuns: number,
  { shrink = true, seed = fuzzSeed } = {},
): Promise<void> {
  const details = await fc.check(property, { seed, numRuns, endOnFailure: !shrink });
  t.false(details.failed, report(details));
}

/** The stream cut at `cuts` (offsets, any order, repeats allowed). */
export function chop(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const offsets = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let start = 0;
  for (const offset of [...offsets, bytes.length]) {
    pieces.push(bytes.subarray(start, offset));
    start = offset;
  }
  return pieces;
}
