// An actor kind is declared once, beside its messages (its folder's kind.ts): the name, the thread
// entry, the API it serves and the config it takes. Roles build specs from the declaration, so a
// config of the wrong shape does not compile; a peer is reached through a reference that carries the
// peer's API type, so no caller names an actor by a bare string and casts what comes back.
import type { ActorSpec } from './spec.js';
import type { Topic } from './topic.js';

/** The API an actor serves to its peers: async members taking structured-cloneable values. */
export type ActorApi = object;

declare const apiType: unique symbol;
declare const configType: unique symbol;

export interface ActorKind<Api extends ActorApi, Config> {
  /** The kind's name, for logs and messages: `pool`, `http-front`. */
  readonly kind: string;
  /** Where the compiled thread entry is: the kind's index.js, beside its kind.js. */
  readonly entry: URL;
  readonly [apiType]?: Api;
  readonly [configType]?: Config;
}

/** A reference to one running actor, by its unique name; plain data, so it travels inside configs. */
export interface ActorRef<Api extends ActorApi> {
  readonly name: string;
  readonly [apiType]?: Api;
}

/** An actor that serves nothing to its peers. */
export type NoApi = Record<never, never>;

export function declareActor<Api extends ActorApi, Config>(kind: string, entry: URL): ActorKind<Api, Config> {
  return { kind, entry };
}

/** The reference to the actor called `name` of that kind. */
export function actorRef<Api extends ActorApi>(_kind: ActorKind<Api, unknown>, name: string): ActorRef<Api> {
  return { name };
}

export interface SpecOptions<Api extends ActorApi, Config> {
  /** Unique within the process (`recv/pool`); a reference or a name. */
  ref: ActorRef<Api> | string;
  role: string;
  config: Config;
  /** The actors this one calls. */
  links?: readonly ActorRef<ActorApi>[];
  /**
   * The topics of the role this actor publishes on, or receives reloaded settings on from the
   * supervisor: each declared by one actor of the role. No actor may publish or subscribe to a topic
   * no spec declares.
   */
  topics?: readonly Topic<unknown>[];
  /**
   * The actor streams the process's log ring (ActorContext.subscribeLogs): the records of every role
   * of the process, not only its own. Refused to any other actor.
   */
  readsLogs?: boolean;
  /** Fronts start after every other actor is ready, and stop first. */
  front?: boolean;
  /** 1-based, when a role runs several actors of one kind. */
  instance?: number;
  /**
   * A cap on the thread's young generation, in MB, for an actor that holds much and allocates in
   * bursts (a store loaded, a replica published): V8 grows the young generation for a burst up to
   * three 16 MB semi-spaces and keeps them resident. Not for actors that allocate all the time (a
   * front, a pool serving values): there a small one costs throughput and promotes garbage early.
   */
  youngGenerationMb?: number;
}

/** The spec the supervisor runs, typed by the kind's declaration. */
export function actorSpec<Api extends ActorApi, Config>(kind: ActorKind<Api, Config>, options: SpecOptions<Api, Config>): ActorSpec {
  return {
    name: typeof options.ref === 'string' ? options.ref : options.ref.name,
    kind: kind.kind,
    instance: options.instance ?? 1,
    role: options.role,
    entry: kind.entry,
    config: options.config,
    front: options.front ?? false,
    links: (options.links ?? []).map((link) => link.name),
    topics: (options.topics ?? []).map(({ name, readers }) => ({ name, readers })),
    readsLogs: options.readsLogs ?? false,
    ...(options.youngGenerationMb === undefined ? {} : { youngGenerationMb: options.youngGenerationMb }),
  };
}
