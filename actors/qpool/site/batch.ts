// Coalesces calls made in one event-loop turn into a single cross-thread message. A comlink call costs
// hundreds of microseconds alone but a few tens when pipelined, so hot paths (value serving, the
// actor-hop benchmark) send one batch per turn and fan the answers back out.

export interface BatchOptions {
  /** Flush early once this many calls are waiting. */
  maxBatch?: number;
}

/**
 * Returns a function that queues one request and resolves with its answer. `sendBatch` receives every
 * request queued in the current turn and must answer with one result per request, in order.
 */
export function batched<Request, Result>(
  sendBatch: (requests: Request[]) => Promise<Result[]>,
  options: BatchOptions = {},
): (request: Request) => Promise<Result> {
  const maxBatch = options.maxBatch ?? 1024;
  let requests: Request[] = [];
  let settlers: { resolve: (result: Result) => void; reject: (error: unknown) => void }[] = [];
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    if (requests.length === 0) return;
    const batch = requests;
    const waiting = settlers;
    requests = [];
    settlers = [];
    sendBatch(batch).then(
      (results) => {
        if (results.length !== waiting.length) {
          const error = new Error(`batch answered ${results.length} results for ${waiting.length} requests`);
          for (const settler of waiting) settler.reject(error);
          return;
        }
        waiting.forEach((settler, index) => settler.resolve(results[index] as Result));
      },
      (error: unknown) => {
        for (const settler of waiting) settler.reject(error);
      },
    );
  };

  return (request: Request) =>
    new Promise<Result>((resolve, reject) => {
      requests.push(request);
      settlers.push({ resolve, reject });
      if (requests.length >= maxBatch) {
        flush();
      } else if (!scheduled) {
        scheduled = true;
        // setImmediate runs after the I/O phase, so every request parsed in this turn joins the batch.
        setImmediate(flush);
      }
    });
}
