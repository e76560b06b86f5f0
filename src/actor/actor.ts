// What an actor is, seen from its own thread: a definition whose start() receives a context and
// returns the running actor. actors/<name>/index.ts passes its definition to runActor().
import type { Logger } from '../log/record.js';
import type { LogListener } from '../log/ring.js';
import type { JobRunner } from '../jobs/pool.js';
import type { ActorApi, PeerLink } from './rpc.js';
import type { ReadyInfo } from './protocol.js';

export interface ActorContext<Config> {
  /** Unique within the process: `pool`, `http-front#2`. */
  readonly name: string;
  /** The folder under actors/: `http-front`. */
  readonly kind: string;
  /** 1-based instance number when a role runs several copies of one actor. */
  readonly instance: number;
  readonly config: Config;
  readonly log: Logger;
  /** CPU-heavy jobs, run on the shared pool in the supervisor. */
  readonly jobs: JobRunner;
  /** The calling end of the link to another actor of the role; the role declares the link. */
  peer: <Api>(name: string) => PeerLink<Api>;
  /** Streams the supervisor's log records: the newest `backlog` first, then every new one. */
  subscribeLogs: (listener: LogListener, backlog?: number) => () => void;
  /**
   * Runs `close` synchronously whenever this thread ends, however it ends. Native resources whose
   * teardown from outside would abort the process (uWS apps) register here.
   */
  onThreadExit: (close: () => void) => void;
}

export interface RunningActor {
  /** Served to every actor that links to this one. */
  api?: ActorApi;
  ready?: ReadyInfo;
  /** Stop taking work and finish what is in flight, within `graceMs`. */
  stop?(graceMs: number): Promise<void>;
}

export interface ActorDefinition<Config> {
  start(context: ActorContext<Config>): Promise<RunningActor> | RunningActor;
}

export function defineActor<Config>(definition: ActorDefinition<Config>): ActorDefinition<Config> {
  return definition;
}

/**
 * A failure that restarting cannot mend (a pool file that does not decrypt): the supervisor logs it and
 * stops the process with exit code 1 instead of applying the restart policy.
 */
export class FatalActorError extends Error {
  override readonly name = 'FatalActorError';
  readonly fatal = true;
}
