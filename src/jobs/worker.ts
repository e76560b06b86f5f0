// piscina's task entry: runs one job from the catalog.
import { isJobName, jobCatalog, type JobRequest } from './catalog.js';

export default function runJob(request: JobRequest): unknown {
  if (!isJobName(request.name)) throw new Error(`unknown job ${String(request.name)}`);
  const job = jobCatalog[request.name] as (input: unknown) => unknown;
  return job(request.input);
}
