// How a role asks the supervisor for an actor: which thread entry to run, with which config slice,
// and which other actors it calls. Roles build specs with actorSpec() from an actor's declaration
// (kind.ts), never by hand.

/** A topic as the supervisor checks it: its name, and who beside its role may read it. */
export interface TopicDeclaration {
  name: string;
  readers: readonly string[];
}

export interface ActorSpec {
  /** Unique within the process: `recv/pool`, or `recv/http-front#2` when a role runs several instances. */
  name: string;
  /** The actor folder (`http-front`); instances of one kind share it. */
  kind: string;
  /** 1-based instance number. */
  instance: number;
  /** The role that asked for it; giving up on the actor stops this role. */
  role: string;
  /** The compiled thread entry its kind declares (kind.ts: the index.js beside it). */
  entry: URL;
  /** The actor's slice of the validated config; structured-cloneable. */
  config: unknown;
  /** Fronts start after every other actor is ready, and stop first. */
  front: boolean;
  /** Names of the actors this one calls (the serving ends of its links). */
  links: string[];
  /**
   * The topics this actor declares for its role, by name with their readers (topic.ts): the role
   * publishes on them, or the supervisor does for it (reloaded settings).
   */
  topics: TopicDeclaration[];
  /** The actor may stream the process's log ring, every role's records (a role's log panel). */
  readsLogs: boolean;
  /** A cap on the thread's young generation, in MB; V8's default (up to 48 MB) when left out. */
  youngGenerationMb?: number;
}
