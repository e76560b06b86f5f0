// One-way events: an owner publishes on a topic, every thread that subscribed receives. The
// supervisor routes them (event-router.ts) and keeps the latest message of each key, so a thread
// that subscribes late, or restarts, receives the current state before anything new.

declare const messageType: unique symbol;

export interface Topic<Message> {
  /** Unique within the process: `monitor/snapshots`, `cert/domains`. */
  readonly name: string;
  readonly [messageType]?: Message;
}

export function declareTopic<Message>(name: string): Topic<Message> {
  return { name };
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
}
