import type { z } from 'zod';
import type { RoleClaims } from '../actor/claims.js';
import type { ActorSpec } from '../actor/spec.js';

export const roleNames = ['cert', 'proxy', 'speedtest', 'monitor', 'send', 'recv'] as const;
export type RoleName = (typeof roleNames)[number];

/** A role: the slice of the host config it reads and the actors it asks the supervisor for. */
export interface RoleDefinition<Schema extends z.ZodType = z.ZodType> {
  name: RoleName;
  summary: string;
  schema: Schema;
  /** The settings `outpost demo` uses: loopback only, free ports, nothing that reaches the internet. */
  demoConfig: z.input<Schema>;
  actors(config: z.output<Schema>): Promise<ActorSpec[]>;
  /** The ports and stores this role owns: a second process asking for one refuses to start (src/actor/claims.ts). */
  claims?(config: z.output<Schema>): RoleClaims;
}

/** What a role that has not landed yet says about itself. */
export interface PlannedRole {
  name: RoleName;
  summary: string;
}
