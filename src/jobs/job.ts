// CPU-heavy one-off work that must never run on an actor's event loop: a pure, synchronous function of
// structured-cloneable input, run by the shared piscina pool (pool.ts). A role declares each of its
// jobs as it declares an actor kind or a site: a name, and the module exporting a function of that
// name, which the pool's thread imports when the job first runs. So the pool holds no list of jobs
// and loads nothing a role does not ask for.

declare const inputType: unique symbol;
declare const outputType: unique symbol;

/** A job as its role declares it: what it takes and gives is carried by the type. */
export interface JobKind<Input, Output> {
  /** The export of `entry` that runs the job. */
  readonly name: string;
  /** The compiled module exporting the job's function. */
  readonly entry: URL;
  readonly [inputType]?: Input;
  readonly [outputType]?: Output;
}

/** A job as it crosses threads, in a request to the supervisor and into the pool: plain data. */
export interface JobRef {
  name: string;
  entry: string;
}

/** What the pool's thread is handed for one run. */
export interface JobRequest {
  job: JobRef;
  input: unknown;
}

export function declareJob<Input, Output>(name: string, entry: URL): JobKind<Input, Output> {
  return { name, entry };
}

export function jobRef(job: JobKind<unknown, unknown>): JobRef {
  return { name: job.name, entry: job.entry.href };
}
