// One-way events: an owner publishes on a topic, every thread that subscribed receives. The
// supervisor routes them (event-router.ts). The latest message of each key is kept, so a thread that
// subscribes late, or restarts, receives the current state before anything new: by the supervisor,
// or, for a topic whose state is large, by the publisher itself (`keptBy: 'publisher'`).
//
// A topic belongs to the role whose actor spec declares it (kind.ts, SpecOptions.topics): only that
// role (and the supervisor) publishes on it, and only that role and the readers the declaration names
// subscribe to it (topic-policy.ts). Roles that share a process still share its memory and its user's
// files: this keeps an actor of one role from being handed another role's state by the runtime, it
// does not isolate a compromised thread.

declare const messageType: unique symbol;

export interface Topic<Message> {
  /** Unique within the process: `monitor/snapshots`, `cert/domains`. */
  readonly name: string;
  /**
   * Who keeps the latest message of each key for later subscribers. `supervisor` (the default) suits
   * small state. `publisher` suits a replica of many keys from one publisher, its owner: the publishing thread holds the messages
   * it made anyway (their strings shared with its own state), where a copy in the supervisor is
   * another full, deserialised copy of the state (10,000 certhub domains: 22 MB of its heap, and
   * its young generation grown to 32 MB while it kept them). A later subscriber then gets the state
   * from the publisher, through the supervisor, after the messages already on their way.
   */
  readonly keptBy: 'supervisor' | 'publisher';
  /**
   * Roles, or actor kinds, of other roles that may subscribe; the declaring role's own actors always
   * may. Empty by default: a role's state stays with the role.
   */
  readonly readers: readonly string[];
  readonly [messageType]?: Message;
}

export interface TopicOptions {
  keptBy?: Topic<unknown>['keptBy'];
  readers?: readonly string[];
}

export function declareTopic<Message>(name: string, options: TopicOptions = {}): Topic<Message> {
  return { name, keptBy: options.keptBy ?? 'supervisor', readers: options.readers ?? [] };
}

export interface PublishOptions {
  /**
   * The piece of state this message is the latest of (a domain's name in a replica); one key per
   * topic when left out. A subscriber that arrives later receives the latest message of every key.
   */
  key?: string;
  /** `false` drops the key's kept message (a removal): delivered now, not to later subscribers. */
  retain?: boolean;
}

export interface SubscribeOptions {
  /**
   * Called when the supervisor refuses the subscription (the topic is not readable by this actor's
   * role); without it, a refusal fails the actor and stops the process.
   */
  onRefused?: (reason: string) => void;
}

/**
 * The events of one topic published in one turn, as they cross threads: parallel arrays, so that a
 * batch of small events is cloned as one array of messages rather than an object per event.
 * `keys` and `retain` are left out when every event has the default (one key, kept).
 */
export interface EventBatch {
  topic: string;
  messages: unknown[];
  keys?: string[];
  retain?: boolean[];
  /** The topic is kept by its publisher (Topic.keptBy): the supervisor keeps none of it. */
  keptByPublisher?: true;
  /** A publisher's state for one subscriber that arrived late (EventChannel.snapshot), for it alone. */
  to?: string;
}
