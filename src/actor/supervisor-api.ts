// What the supervisor offers every actor over comlink (the `supervisorPort` of ActorWorkerData).
import type { JobInput, JobName, JobOutput } from '../jobs/catalog.js';

export interface SupervisorApi {
  runJob<Name extends JobName>(name: Name, input: JobInput<Name>): Promise<JobOutput<Name>>;
}
