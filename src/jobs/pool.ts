import { availableParallelism } from 'node:os';
import type { Piscina } from 'piscina';
import type { JobInput, JobName, JobOutput, JobRequest } from './catalog.js';

/** Runs catalog jobs; the supervisor owns one and actors reach it through SupervisorApi.runJob. */
export interface JobRunner {
  run<Name extends JobName>(name: Name, input: JobInput<Name>): Promise<JobOutput<Name>>;
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

  async run<Name extends JobName>(name: Name, input: JobInput<Name>): Promise<JobOutput<Name>> {
    this.pool ??= this.createPool();
    const request: JobRequest<Name> = { name, input };
    return (await (await this.pool).run(request)) as JobOutput<Name>;
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    // A pool that could not be made has no threads to end; its error was the failed job's answer.
    await (await pool?.catch(() => undefined))?.destroy();
  }
}
