// piscina's task entry: runs one job, imported from the module its declaration names (job.ts).
import type { JobRequest } from './job.js';

export default async function runJob({ job, input }: JobRequest): Promise<unknown> {
  const module = (await import(job.entry)) as Record<string, unknown>;
  const run = module[job.name];
  if (typeof run !== 'function') throw new Error(`${job.entry} exports no job ${job.name}`);
  return (run as (input: unknown) => unknown)(input);
}
