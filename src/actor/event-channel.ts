// An actor's side of the event channel: publishes are batched per turn of the event loop (one post
// to the supervisor however many events), and each topic is subscribed once per thread however
// many listeners it has here.
import type { EventBatch, PublishOptions, Topic } from './topic.js';

export interface EventChannelPorts {
  publish(batches: EventBatch[]): void;
  subscribe(topic: string): void;
  unsubscribe(topic: string): void;
}

type Listener = (message: unknown) => void;

export class EventChannel {
  /** This turn's batches, one per topic, in the order topics were first published to. */
  private pending = new Map<string, EventBatch>();
  private flushScheduled = false;
  private readonly listeners = new Map<string, Set<Listener>>();

  constructor(private readonly ports: EventChannelPorts) {}

  publish<Message>(topic: Topic<Message>, message: Message, options: PublishOptions = {}): void {
    let batch = this.pending.get(topic.name);
    if (batch === undefined) {
      batch = { topic: topic.name, messages: [] };
      this.pending.set(topic.name, batch);
    }
    const key = options.key ?? '';
    const retain = options.retain ?? true;
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

  subscribe<Message>(topic: Topic<Message>, listener: (message: Message) => void): () => void {
    let set = this.listeners.get(topic.name);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(topic.name, set);
      this.ports.subscribe(topic.name);
    }
    const untyped = listener as Listener;
    set.add(untyped);
    return () => {
      set.delete(untyped);
      if (set.size === 0 && this.listeners.get(topic.name) === set) {
        this.listeners.delete(topic.name);
        this.ports.unsubscribe(topic.name);
      }
    };
  }

  /** Events the supervisor routed to this thread. */
  deliver(batches: readonly EventBatch[]): void {
    for (const batch of batches) {
      const listeners = this.listeners.get(batch.topic);
      if (listeners === undefined) continue;
      for (const message of batch.messages) for (const listener of listeners) listener(message);
    }
  }

  /** Sends what is batched now (on stop, so that a last state change is not lost). */
  flush(): void {
    this.flushScheduled = false;
    if (this.pending.size === 0) return;
    const batches = [...this.pending.values()];
    this.pending = new Map();
    this.ports.publish(batches);
  }
}
