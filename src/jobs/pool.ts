import { availableParallelism } from 'node:os';
import type { Piscina } from 'piscina';
import { jobRef, type JobKind, type JobRef, type JobRequest } from './job.js';

/** Runs the jobs roles declare (job.ts); the supervisor owns one and actors reach it through SupervisorApi.runJob. */
export interface JobRunner {
  run<Input, Output>(job: JobKind<Input, Output>, input: Input): Promise<Output>;
}

/**
 * The one shared piscina pool of the process. Threads start on the first job and leave after a
 * minute idle, and piscina itself is loaded by that first job, so a host that never needs one pays
 * nothing at start (the supervisor thread's module loading is on every role's ready path).
 */
export class JobPool implements JobRunner {
  private pool: Promise<Piscina> | undefined;

  private async createPool(): Promise<Piscina> {
    const { Piscina } = await import('piscina');
    return new Piscina({
      filename: new URL('./worker.js', import.meta.url).href,
      minThreads: 0,
      maxThreads: Math.max(1, availableParallelism()),
      idleTimeout: 60_000,
    });
  }

  async run<Input, Output>(job: JobKind<Input, Output>, input: Input): Promise<Output> {
    return (await this.runRef(jobRef(job), input)) as Output;
  }

  /** A job named by reference, as an actor's request to the supervisor carries it. */
  async runRef(job: JobRef, input: unknown): Promise<unknown> {
    this.pool ??= this.createPool();
    const request: JobRequest = { job, input };
    return await (await this.pool).run(request);
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    // A pool that could not be made has no threads to end; its error was the failed job's answer.
    await (await pool?.catch(() => undefined))?.destroy();
  }
}
