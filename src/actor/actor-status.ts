// What the supervisor tells about its actors: to `outpost status` (control-socket.ts), to the fronts'
// /readyz (readiness topic) and to /metrics (supervisor-figures.ts). One shape for all three.
import { declareTopic, type Topic } from './topic.js';

export type ActorState = 'starting' | 'running' | 'backoff' | 'stopping' | 'stopped';

export interface ActorStatus {
  name: string;
  role: string;
  state: ActorState;
  /** Restarts after a crash since the supervisor started. */
  restarts: number;
  /** Seconds since the actor last reported ready; absent while it is not running. */
  uptimeSeconds?: number;
  /** Why the actor says it cannot work now (ActorContext.setReadiness). */
  notReady?: string;
  /** The URLs a front listens on. */
  urls?: string[];
}

export interface SupervisorStatus {
  pid: number;
  startedAt: string;
  roles: { name: string; ready: boolean; actors: ActorStatus[] }[];
}

/** A role's readiness, as its fronts answer /readyz. */
export interface RoleReadiness {
  ready: boolean;
  /** `recv/pool: pool file cannot be written`, one line per actor that is not ready. */
  reasons: string[];
}

export function readinessTopic(role: string): Topic<RoleReadiness> {
  return declareTopic<RoleReadiness>(`readiness/${role}`);
}

export function roleReadiness(actors: readonly ActorStatus[]): RoleReadiness {
  const reasons = actors.flatMap((actor) => {
    if (actor.state !== 'running') return [`${actor.name}: ${actor.state}`];
    return actor.notReady === undefined ? [] : [`${actor.name}: ${actor.notReady}`];
  });
  return { ready: reasons.length === 0, reasons };
}
