// The figures every part of the qpool-serve benchmark works with.

export const megabyte = 1024 * 1024;
/** `server.max_entries` of every server measured, and the values a fill brings. */
export const capacity = 100_000;
/** wrk's connections in every load. */
export const connections = 64;
/** A round must not run the pool dry: 100,000 values last 2 s at 50,000/s (wrk takes whole seconds). */
export const maxRoundSeconds = 1;
/** V8 gives back the garbage of a large arrival only after some idle time (its memory reducer). */
export const memoryIdleMs = 60_000;
/** The journal is folded into a new snapshot past this size (actors/qpool/recv.ts). */
export const rewriteAtJournalBytes = 8 * megabyte;
/** APP_POOL_KEY of the servers with a pool file, and what their journal is opened with to count commits. */
export const passphrase = 'qpool-benchmark-passphrase';
/** The body of the external HTTP ceiling, nginx answering from memory. */
export const nginxBodyBytes = 256;
/**
 * The external ceiling's tuning beyond nginx's defaults: wrk's connections kept alive for the whole
 * round (nginx closes one after 1,000 requests by default; our fronts never do), no access log.
 */
export const nginxCeilingSetting = 'keepalive_requests 1000000;';
