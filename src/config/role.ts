// What a role is to the runtime: the slice of the host config it reads and the actors it asks the
// supervisor for. The roles themselves live under actors/<role>/; actors/registry.ts lists them,
// and src/ reaches them only through the list it is handed.
import type { z } from 'zod';
import type { RoleClaims } from '../actor/claims.js';
import type { ActorSpec } from '../actor/spec.js';
import type { Topic } from '../actor/topic.js';

/** A message that hands a role's actors settings changed by a reload; a restarted actor gets the latest too. */
export interface LivePublication {
  topic: Topic<unknown>;
  message: unknown;
}

/** What of a running role's settings changes without a restart (SIGHUP: src/cli/reload.ts). */
export interface LiveSettings<Config> {
  /** The top-level keys of the role's config that may change live (`routes`). */
  keys: readonly string[];
  /** The messages that give the role's actors `config`, whose live keys are the new ones. */
  publish(config: Config): LivePublication[];
}

export interface RoleDefinition<Schema extends z.ZodType = z.ZodType> {
  /** The key under `roles` in a host config. */
  name: string;
  summary: string;
  schema: Schema;
  /** The settings `outpost demo` uses: loopback only, free ports, nothing that reaches the internet. */
  demoConfig: z.input<Schema>;
  actors(config: z.output<Schema>): Promise<ActorSpec[]>;
  /** The ports and stores this role owns: a second process asking for one refuses to start (src/actor/claims.ts). */
  claims?(config: z.output<Schema>): RoleClaims;
  /**
   * Problems this role's settings make with the other roles of the same host config (the qpool
   * sender's loopback diode needs a loopback receiver beside it). `path` starts under `roles`.
   */
  checkHost?(roles: Readonly<Record<string, unknown>>): { path: (string | number)[]; message: string }[];
  live?: LiveSettings<z.output<Schema>>;
}

/** The roles a program knows, in the order it lists and starts them. */
export type RoleList = readonly RoleDefinition[];

/** The role called `name` in `roles`. */
export function findRole(roles: RoleList, name: string): RoleDefinition | undefined {
  return roles.find((role) => role.name === name);
}
