// An actor's side of the event channel: publishes are batched per turn of the event loop (one post
// to the supervisor however many events), each topic is subscribed once per thread however many
// listeners it has here, and the latest message of each key of a topic kept by its publisher
// (Topic.keptBy) is kept here, for the subscribers that arrive later.
import { FatalActorError } from './actor.js';
import type { EventBatch, PublishOptions, SubscribeOptions, Topic } from './topic.js';

export interface EventChannelPorts {
  publish(batches: EventBatch[]): void;
  subscribe(topic: string): void;
  unsubscribe(topic: string): void;
}

type Listener = (message: unknown) => void;

interface Subscription {
  listener: Listener;
  onRefused: ((reason: string) => void) | undefined;
}

/**
 * The most messages one post carries; more go in several posts, in order. A post is cloned through
 * one buffer per thread it crosses: 10,000 certhub domains in one post were a 25 MB buffer that
 * glibc kept in the thread's malloc arena after it was freed.
 */
export const messagesPerPost = 256;

export class EventChannel {
  /** This turn's batches, one per topic, in the order topics were first published to. */
  private pending = new Map<string, EventBatch>();
  private flushScheduled = false;
  private readonly listeners = new Map<string, Set<Subscription>>();
  /** Topic kept by this publisher -> key -> the latest message published for it. */
  private readonly kept = new Map<string, Map<string, unknown>>();

  constructor(private readonly ports: EventChannelPorts) {}

  publish<Message>(topic: Topic<Message>, message: Message, options: PublishOptions = {}): void {
    let batch = this.pending.get(topic.name);
    if (batch === undefined) {
      batch = { topic: topic.name, messages: [], ...(topic.keptBy === 'publisher' ? { keptByPublisher: true } : {}) };
      this.pending.set(topic.name, batch);
    }
    const key = options.key ?? '';
    const retain = options.retain ?? true;
    if (topic.keptBy === 'publisher') this.keep(topic.name, key, retain, message);
    if ((key !== '' || !retain) && batch.keys === undefined) {
      batch.keys = batch.messages.map(() => '');
      batch.retain = batch.messages.map(() => true);
    }
    batch.messages.push(message);
    batch.keys?.push(key);
    batch.retain?.push(retain);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  subscribe<Message>(topic: Topic<Message>, listener: (message: Message) => void, options: SubscribeOptions = {}): () => void {
    let set = this.listeners.get(topic.name);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(topic.name, set);
      this.ports.subscribe(topic.name);
    }
    const subscription: Subscription = { listener: listener as Listener, onRefused: options.onRefused };
    set.add(subscription);
    return () => {
      set.delete(subscription);
      if (set.size === 0 && this.listeners.get(topic.name) === set) {
        this.listeners.delete(topic.name);
        this.ports.unsubscribe(topic.name);
      }
    };
  }

  /**
   * Sends what this thread keeps of `topic` to one subscriber that arrived late, after what is
   * batched now: the subscriber already receives every publish from here on, so whatever reaches
   * it first, it ends with the latest state.
   */
  snapshot(topic: string, subscriber: string): void {
    this.flush();
    const kept = this.kept.get(topic);
    if (kept === undefined || kept.size === 0) return;
    this.post([{ topic, messages: [...kept.values()], keptByPublisher: true, to: subscriber }]);
  }

  /** Events the supervisor routed to this thread. */
  deliver(batches: readonly EventBatch[]): void {
    for (const batch of batches) {
      const listeners = this.listeners.get(batch.topic);
      if (listeners === undefined) continue;
      for (const message of batch.messages) for (const { listener } of listeners) listener(message);
    }
  }

  /**
   * The supervisor refused this thread's subscription to `topic`: its listeners are dropped and told.
   * A listener that did not ask to be told is a role subscribing to what it did not declare, which
   * a restart cannot mend: the actor fails.
   */
  refused(topic: string, reason: string): void {
    const subscriptions = this.listeners.get(topic);
    if (subscriptions === undefined) return;
    this.listeners.delete(topic);
    for (const { onRefused } of subscriptions) {
      if (onRefused === undefined) throw new FatalActorError(`the supervisor refused the subscription to topic ${topic}: ${reason}`);
      onRefused(reason);
    }
  }

  private keep(topic: string, key: string, retain: boolean, message: unknown): void {
    let kept = this.kept.get(topic);
    if (kept === undefined) {
      kept = new Map();
      this.kept.set(topic, kept);
    }
    if (retain) kept.set(key, message);
    else kept.delete(key);
  }

  /** Sends what is batched now (on stop, so that a last state change is not lost). */
  flush(): void {
    this.flushScheduled = false;
    if (this.pending.size === 0) return;
    const batches = [...this.pending.values()];
    this.pending = new Map();
    this.post(batches);
  }

  private post(batches: EventBatch[]): void {
    if (batches.reduce((count, batch) => count + batch.messages.length, 0) <= messagesPerPost) {
      this.ports.publish(batches);
      return;
    }
    for (const batch of batches) {
      for (let start = 0; start < batch.messages.length; start += messagesPerPost) this.ports.publish([slice(batch, start, start + messagesPerPost)]);
    }
  }
}

function slice(batch: EventBatch, start: number, end: number): EventBatch {
  return {
    ...batch,
    messages: batch.messages.slice(start, end),
    ...(batch.keys === undefined ? {} : { keys: batch.keys.slice(start, end) }),
    ...(batch.retain === undefined ? {} : { retain: batch.retain.slice(start, end) }),
  };
}
