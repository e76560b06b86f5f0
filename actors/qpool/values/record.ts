// A value of qpool's: where it came from, and the record it is everywhere outside the binary batches
// (values/batch.ts): one JSON line on the diode, one answer of /api/random.

/** Where a value came from. `demo` values come from the OS CSPRNG (beta builds) and are never quantum. */
export const valueSources = ['keyed', 'legacy', 'demo'] as const;
export type ValueSource = (typeof valueSources)[number];

/** One 1024-bit value as it crosses the diode (one JSON line) and as /api/random answers it. */
export interface ValueRecord {
  /** Exactly 256 lowercase hex characters. */
  value: string;
  /** ISO 8601 UTC time at which the value was collected from the provider. */
  timestamp: string;
  source: ValueSource;
}
