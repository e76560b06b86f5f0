// An actor's side of the event channel: publishes are batched per turn of the event loop (one post
// to the supervisor however many events), and each topic is subscribed once per thread however
// many listeners it has here.
import type { EventEnvelope, PublishOptions, Topic } from './topic.js';

export interface EventChannelPorts {
  publish(events: EventEnvelope[]): void;
  subscribe(topic: string): void;
  unsubscribe(topic: string): void;
}

type Listener = (message: unknown) => void;

export class EventChannel {
  private pending: EventEnvelope[] = [];
  private flushScheduled = false;
  private readonly listeners = new Map<string, Set<Listener>>();

  constructor(private readonly ports: EventChannelPorts) {}

  publish<Message>(topic: Topic<Message>, message: Message, options: PublishOptions = {}): void {
    this.pending.push({ topic: topic.name, key: options.key ?? '', retain: options.retain ?? true, message });
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
  deliver(events: readonly EventEnvelope[]): void {
    for (const event of events) {
      for (const listener of this.listeners.get(event.topic) ?? []) listener(event.message);
    }
  }

  /** Sends what is batched now (on stop, so that a last state change is not lost). */
  flush(): void {
    this.flushScheduled = false;
    if (this.pending.length === 0) return;
    const events = this.pending;
    this.pending = [];
    this.ports.publish(events);
  }
}
