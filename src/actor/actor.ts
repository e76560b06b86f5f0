// What an actor is, seen from its own thread: a definition whose start() receives a context and
// returns the running actor. actors/<name>/index.ts passes its declaration (kind.ts) and its
// definition to runActor().
import type { Logger } from '../log/record.js';
import type { LogListener } from '../log/ring.js';
import type { JobRunner } from '../jobs/pool.js';
import type { ThreadMetrics } from '../metrics/thread-metrics.js';
import type { ActorApi, ActorRef } from './kind.js';
import type { PeerLink } from './rpc.js';
import type { ReadyInfo } from './protocol.js';
import type { PublishOptions, SubscribeOptions, Topic } from './topic.js';
import { OutpostError } from '../errors.js';

export interface ActorContext<Config> {
  /** Unique within the process: `recv/pool`, `recv/http-front#2`. */
  readonly name: string;
  /** The kind's name, as its kind.ts declares it: `http-front`, `pool`. */
  readonly kind: string;
  /** 1-based instance number when a role runs several copies of one actor. */
  readonly instance: number;
  /** The role that started this actor (`recv`). */
  readonly role: string;
  readonly config: Config;
  /** This thread's metrics, pushed to the role's fronts (src/metrics/). */
  readonly metrics: ThreadMetrics;
  /**
   * Says whether the actor can do its work now; the role's fronts answer /readyz 503 while any actor
   * is not ready. Ready by default once started; say `false` with a reason (a store that cannot be
   * written), and `true` again once it can.
   */
  setReadiness: (ready: boolean, reason?: string) => void;
  readonly log: Logger;
  /** CPU-heavy jobs, run on the shared pool in the supervisor. */
  readonly jobs: JobRunner;
  /** The calling end of the link to another actor of the role; the role declares the link. */
  peer: <Api extends ActorApi>(ref: ActorRef<Api>) => PeerLink<Api>;
  /** Publishes a one-way event to every thread subscribed to the topic (see topic.ts). */
  publish: <Message>(topic: Topic<Message>, message: Message, options?: PublishOptions) => void;
  /**
   * Receives the topic's kept state at once, then every new event; returns the unsubscribe function.
   * The supervisor refuses a topic not readable by this actor's role (topic-policy.ts).
   */
  subscribe: <Message>(topic: Topic<Message>, listener: (message: Message) => void, options?: SubscribeOptions) => () => void;
  /** Streams the supervisor's log records: the newest `backlog` first, then every new one. */
  subscribeLogs: (listener: LogListener, backlog?: number) => () => void;
  /**
   * Runs `close` synchronously whenever this thread ends, however it ends. Native resources whose
   * teardown from outside would abort the process (uWS apps) register here.
   */
  onThreadExit: (close: () => void) => void;
}

export interface RunningActor<Api extends ActorApi> {
  /** Served to every actor that links to this one. */
  api?: Api;
  ready?: ReadyInfo;
  /** Stop taking work and finish what is in flight, within `graceMs`. */
  stop?(graceMs: number): Promise<void>;
}

export interface ActorDefinition<Api extends ActorApi, Config> {
  start(context: ActorContext<Config>): Promise<RunningActor<Api>> | RunningActor<Api>;
}

/**
 * A failure that restarting cannot mend (a pool file that does not decrypt): the supervisor logs it and
 * stops the process with exit code 1 instead of applying the restart policy.
 */
export class FatalActorError extends OutpostError {
  override readonly name: string = 'FatalActorError';
  constructor(message: string, options?: ErrorOptions) {
    super('ERR_INTERNAL', message, options);
  }
  readonly fatal = true;
}
