// What the supervisor offers every actor over comlink (the `supervisorPort` of ActorWorkerData).
import type { JobRef } from '../jobs/job.js';

export interface SupervisorApi {
  /** Runs a job a role declared (src/jobs/job.ts) on the shared pool. */
  runJob(job: JobRef, input: unknown): Promise<unknown>;
}
