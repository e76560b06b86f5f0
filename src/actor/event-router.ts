// The supervisor's side of the event channel: it keeps the latest message of every key of every
// topic and hands each published batch to the threads subscribed to its topics, one post per thread.
import type { EventEnvelope } from './topic.js';

export type Deliver = (subscriber: string, events: readonly EventEnvelope[]) => void;

export class EventRouter {
  /** topic -> key -> the latest message kept for it, in the order keys first appeared. */
  private readonly retained = new Map<string, Map<string, EventEnvelope>>();
  private readonly subscribers = new Map<string, Set<string>>();

  constructor(private readonly deliver: Deliver) {}

  /** Subscribes `subscriber` (a thread) to `topic` and delivers what is kept for it at once. */
  subscribe(subscriber: string, topic: string): void {
    let set = this.subscribers.get(topic);
    if (set === undefined) {
      set = new Set();
      this.subscribers.set(topic, set);
    }
    set.add(subscriber);
    const kept = this.retained.get(topic);
    if (kept !== undefined && kept.size > 0) this.deliver(subscriber, [...kept.values()]);
  }

  unsubscribe(subscriber: string, topic: string): void {
    this.subscribers.get(topic)?.delete(subscriber);
  }

  /** Forgets every subscription of a thread that ended; its next run subscribes again. */
  dropSubscriber(subscriber: string): void {
    for (const set of this.subscribers.values()) set.delete(subscriber);
  }

  publish(events: readonly EventEnvelope[]): void {
    const outgoing = new Map<string, EventEnvelope[]>();
    for (const event of events) {
      this.keep(event);
      for (const subscriber of this.subscribers.get(event.topic) ?? []) {
        let batch = outgoing.get(subscriber);
        if (batch === undefined) {
          batch = [];
          outgoing.set(subscriber, batch);
        }
        batch.push(event);
      }
    }
    for (const [subscriber, batch] of outgoing) this.deliver(subscriber, batch);
  }

  private keep(event: EventEnvelope): void {
    let kept = this.retained.get(event.topic);
    if (kept === undefined) {
      kept = new Map();
      this.retained.set(event.topic, kept);
    }
    if (event.retain) kept.set(event.key, event);
    else kept.delete(event.key);
  }
}
