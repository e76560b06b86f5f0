// What a role is to the runtime: the slice of the host config it reads and the actors it asks the
// supervisor for. The roles themselves live under actors/<role>/; actors/registry.ts lists them,
// and src/ reaches them only through the list it is handed.
import type { z } from 'zod';
import type { RoleClaims } from '../actor/claims.js';
import type { ActorSpec } from '../actor/spec.js';
import type { Topic } from '../actor/topic.js';
import type { ErrorTable } from '../errors.js';

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

/** Where a front of a running host listens, and the role it serves. */
export interface Endpoint {
  role: string;
  url: string;
}

/** What `outpost demo` shows of a role once every front listens. */
export interface DemoStarted {
  /** The URL to print instead of the front's own (the proxy's is a name, not an address). */
  url?: string;
  /** Lines printed under the role's URL: how to log in, what to trust. */
  notes: string[];
}

/** A role's part in `outpost demo` beyond its static settings. */
export interface DemoHooks<Input, Config> {
  /** Settings made at start instead of `demoConfig` (a throw-away folder with files in it). */
  prepare?(): Promise<Input>;
  /**
   * Once every front listens: settings that need the other roles' addresses go to this role's actors
   * through `publish` (the proxy's route to the demo's netspeed page), and what to print comes back.
   */
  started?(config: Config, endpoints: readonly Endpoint[], publish: (publication: LivePublication) => void): Promise<DemoStarted>;
}

export interface RoleDefinition<Schema extends z.ZodType = z.ZodType> {
  /** The key under `roles` in a host config. */
  name: string;
  summary: string;
  schema: Schema;
  /** The settings `outpost demo` uses: loopback only, free ports, nothing that reaches the internet. */
  demoConfig: z.input<Schema>;
  demo?: DemoHooks<z.input<Schema>, z.output<Schema>>;
  actors(config: z.output<Schema>): Promise<ActorSpec[]>;
  /** The error codes the role declares (declareErrors in src/errors.ts), with their statuses: the docs list each. */
  errors?: ErrorTable;
  /** The ports and stores this role owns: a second process asking for one refuses to start (src/actor/claims.ts). */
  claims?(config: z.output<Schema>): RoleClaims;
  /**
   * Problems this role's settings make with the other roles of the same host config (the qpool
   * sender's loopback diode needs a loopback receiver beside it). `path` starts under `roles`.
   */
  checkHost?(roles: Readonly<Record<string, unknown>>): { path: (string | number)[]; message: string }[];
  live?: LiveSettings<z.output<Schema>>;
  /**
   * Why the role belongs in a process of its own: what it holds that the other roles must not reach
   * (roles in one process share its memory and its user). `outpost run` warns when a host config puts
   * it beside other roles.
   */
  ownProcess?: string;
  /**
   * What secrets these settings hold (`the route tokens`); undefined when none. A config file holding
   * any is refused while group or others may read it (src/config/private-file.ts).
   */
  secrets?(config: z.output<Schema>): string | undefined;
}

/** The roles a program knows, in the order it lists and starts them. */
export type RoleList = readonly RoleDefinition[];

/** The role called `name` in `roles`. */
export function findRole(roles: RoleList, name: string): RoleDefinition | undefined {
  return roles.find((role) => role.name === name);
}
