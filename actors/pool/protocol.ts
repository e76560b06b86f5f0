// The pool actor's messages: what the diode receiver hands it, what the HTTP fronts ask of it.
// Types only; the pool's logic is in logic.ts and store/.

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

/** GET /api/status */
export interface PoolStatus {
  /** Values currently in the pool. */
  available: number;
  /** Pool capacity (`server.max_entries`). */
  capacity: number;
  /** Collection time of the oldest value; absent when the pool is empty. */
  oldest?: string;
  /** Collection time of the newest value; absent when the pool is empty. */
  newest?: string;
  /** Values served since the pool was created (kept across restarts when `pool_file` is set). */
  served_total: number;
  /** When values last arrived from the diode; absent before the first arrival. */
  last_ingest?: string;
}

/** A value handed to a front, with the figure its X-Quantum-Available header reports. */
export interface TakenValue {
  record: ValueRecord;
  /** Values left in the pool after this one was taken. */
  available: number;
}

/**
 * The answer to one take request: a value, or why there is none. `empty` is the normal
 * "pool empty" 503; `unavailable` means the pool could not be committed to disk.
 */
export type TakeResult = { type: 'value'; value: TakenValue } | { type: 'empty' } | { type: 'unavailable'; message: string };

/** What the diode receiver learned from one batch of lines. */
export interface IngestResult {
  added: number;
  /** Already in the pool or in the served history. */
  duplicates: number;
  /** Oldest values discarded because the pool was at capacity. */
  evicted: number;
}

/** The pool actor's API, called by the diode receiver and by the HTTP fronts. */
export interface PoolApi {
  /** Adds validated records, newest last. */
  ingest(records: ValueRecord[]): Promise<IngestResult>;
  /** Takes `count` values at once (one request each), recorded as served on disk before this resolves. */
  take(count: number): Promise<TakeResult[]>;
  status(): Promise<PoolStatus>;
}

export interface PoolConfig {
  /** `server.max_entries` */
  capacity: number;
  /** `server.served_history` */
  servedHistory: number;
  /** `server.pool_file`; absent keeps the pool in memory only. The passphrase comes from APP_POOL_KEY. */
  poolFile?: string;
  /** Both files are rewritten once the journal grows past this. */
  rewriteAtJournalBytes: number;
}
