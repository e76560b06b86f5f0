// The supervisor's own figures, pushed with each role's: actor restarts and state, and the process as
// a whole (CPU, resident memory, start time, under the names node and Go exporters use, so existing
// dashboards and alerts apply), and the host's CPU, so that a fleet alerts on it without another exporter.
import { cpus } from 'node:os';
import type { ActorStatus } from '../actor/actor-status.js';
import { family, type MetricFamily } from './family.js';
import { threadResourceFamilies } from './thread-metrics.js';

const startTimeSeconds = Math.round(Date.now() / 1000 - process.uptime());

export function supervisorFamilies(actors: readonly ActorStatus[]): MetricFamily[] {
  const cpu = process.cpuUsage();
  return [
    family(
      'outpost_actor_restarts_total',
      'Restarts of an actor after it crashed.',
      'counter',
      actors.map((actor) => ({ value: actor.restarts, labels: { actor: actor.name } })),
    ),
    family(
      'outpost_actor_up',
      '1 while the actor runs, 0 while it starts, backs off or stops.',
      'gauge',
      actors.map((actor) => ({ value: actor.state === 'running' ? 1 : 0, labels: { actor: actor.name } })),
    ),
    family(
      'outpost_actor_ready',
      '1 while the actor runs and says it can work (what /readyz reads).',
      'gauge',
      actors.map((actor) => ({ value: actor.state === 'running' && actor.notReady === undefined ? 1 : 0, labels: { actor: actor.name } })),
    ),
    family('process_cpu_seconds_total', 'CPU time of the whole process (every thread), user and system.', 'counter', [
      { value: (cpu.user + cpu.system) / 1e6, labels: {} },
    ]),
    family('process_resident_memory_bytes', 'Resident memory of the whole process.', 'gauge', [{ value: process.memoryUsage.rss(), labels: {} }]),
    family('process_start_time_seconds', 'When the process started, in seconds since the Unix epoch.', 'gauge', [{ value: startTimeSeconds, labels: {} }]),
    family('outpost_host_cpu_seconds_total', 'CPU time of the whole host, summed over its cores, busy or idle.', 'counter', hostCpu()),
    // The supervisor is a thread like the actors: its heap and handles beside theirs.
    ...threadResourceFamilies(),
  ];
}

function hostCpu(): { value: number; labels: { mode: string } }[] {
  let busy = 0;
  let idle = 0;
  for (const { times } of cpus()) {
    busy += times.user + times.nice + times.sys + times.irq;
    idle += times.idle;
  }
  return [
    { value: busy / 1000, labels: { mode: 'busy' } },
    { value: idle / 1000, labels: { mode: 'idle' } },
  ];
}
