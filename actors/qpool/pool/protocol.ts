// The pool actor's messages: what the diode receiver hands it, what the HTTP fronts ask of it.
// Types only; the pool's logic is in logic.ts and store/.

/** GET /api/status */
export interface PoolStatus {
  /** Values currently in the pool, those the fronts hold ready to serve included. */
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

/**
 * A front that holds values (memory-only pools, see holders.ts), as it names itself to the pool with
 * each take and report.
 */
export interface Holding {
  /** The front's actor name. */
  front: string;
  /** Made anew each time the front starts: a front started again holds nothing of its last run. */
  start: string;
  /** Held values it served since its last report. */
  served: number;
}

/** One message of a front to the pool: values for the requests waiting now, and maybe some to hold. */
export interface TakeRequest {
  /** Requests waiting, one value each; served before anything is held. */
  count: number;
  /** Values more the front would hold; a pool file records them on disk as served before it hands them over. */
  hold?: number;
  holding?: Holding;
}

/**
 * The answer to one take of `count` values: the values taken, as a value batch (values/batch.ts),
 * newest first. Fewer than `count` means the pool ran empty; the requests left over are answered
 * "pool empty". With `failure` set nothing was taken: the pool could not be committed to disk.
 */
export interface TakeBatch {
  values: Uint8Array;
  /**
   * Values left after the last value here was taken, those the fronts hold included; value `i` of
   * `n` saw `available + n - 1 - i`.
   */
  available: number;
  /** Values handed over to hold, newest first, after `values`; absent when none. */
  held?: Uint8Array;
  failure?: string;
}

/** A take as the pool's API answers it: with the pool's change count once it was committed. */
export interface TakeAnswer extends TakeBatch {
  /** A published status (PublishedStatus) with this count or more includes this take. */
  changes: number;
}

/** The pool's status as published to the fronts, with the change count it reflects (see TakeBatch.changes). */
export interface PublishedStatus {
  changes: number;
  status: PoolStatus;
}

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
  /** Adds a batch of validated values (values/batch.ts), newest last. */
  ingest(batch: Uint8Array): Promise<IngestResult>;
  /** Takes values for `count` requests at once, recorded as served on disk before this resolves, and maybe values to hold. */
  take(request: TakeRequest): Promise<TakeAnswer>;
  /**
   * A front's report of the held values it served, and of those it gives back unserved (`returned`,
   * a value batch, newest first); answers the status that includes it, with its change count.
   */
  report(holding: Holding, returned?: Uint8Array): Promise<PublishedStatus>;
  status(): Promise<PoolStatus>;
  /**
   * Whether values handed over now would be stored: the pool has loaded and, with a pool file, its
   * files take writes. The diode receiver asks before every run of the receive command, so nothing
   * is taken off the diode that the pool could not keep.
   */
  readyToStore(): Promise<boolean>;
}

export interface PoolConfig {
  /** `server.max_entries` */
  capacity: number;
  /** `server.served_history` */
  servedHistory: number;
  /** `server.pool_file`; absent keeps the pool in memory only. */
  poolFile?: string;
  /** The pool file's passphrase (APP_POOL_KEY, which the main thread takes out of the environment: pool-key.ts). */
  passphrase?: string;
  /** Both files are rewritten once the journal grows past this. */
  rewriteAtJournalBytes: number;
}
