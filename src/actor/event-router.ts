// The supervisor's side of the event channel: it keeps the latest message of every key of every
// topic and hands each published batch, as it came, to the threads subscribed to its topic: one
// post per thread per turn.
import type { EventBatch } from './topic.js';

export type Deliver = (subscriber: string, batches: EventBatch[]) => void;

export class EventRouter {
  /** topic -> key -> the latest message kept for it, in the order keys first appeared. */
  private readonly retained = new Map<string, Map<string, unknown>>();
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
    if (kept !== undefined && kept.size > 0) this.deliver(subscriber, [{ topic, messages: [...kept.values()] }]);
  }

  unsubscribe(subscriber: string, topic: string): void {
    this.subscribers.get(topic)?.delete(subscriber);
  }

  /** Forgets every subscription of a thread that ended; its next run subscribes again. */
  dropSubscriber(subscriber: string): void {
    for (const set of this.subscribers.values()) set.delete(subscriber);
  }

  publish(batches: readonly EventBatch[]): void {
    const outgoing = new Map<string, EventBatch[]>();
    for (const batch of batches) {
      this.keep(batch);
      for (const subscriber of this.subscribers.get(batch.topic) ?? []) {
        const list = outgoing.get(subscriber);
        if (list === undefined) outgoing.set(subscriber, [batch]);
        else list.push(batch);
      }
    }
    for (const [subscriber, list] of outgoing) this.deliver(subscriber, list);
  }

  private keep(batch: EventBatch): void {
    let kept = this.retained.get(batch.topic);
    if (kept === undefined) {
      kept = new Map();
      this.retained.set(batch.topic, kept);
    }
    const { messages, keys, retain } = batch;
    if (keys === undefined) {
      kept.set('', messages[messages.length - 1]);
      return;
    }
    messages.forEach((message, index) => {
      const key = keys[index] ?? '';
      if (retain?.[index] === false) kept.delete(key);
      else kept.set(key, message);
    });
  }
}
