// The supervisor's side of the event channel: it keeps the latest message of every key of every
// topic it keeps (topic.ts, keptBy), and hands each published batch, as it came, to the threads
// subscribed to its topic: one post per thread per turn. For a topic its publisher keeps, it asks
// the publisher for the state a late subscriber needs.
import type { EventBatch } from './topic.js';

export type Deliver = (subscriber: string, batches: EventBatch[]) => void;
/** Asks `publisher` to send what it keeps of `topic` to `subscriber` (EventChannel.snapshot). */
export type RequestSnapshot = (publisher: string, topic: string, subscriber: string) => void;

export class EventRouter {
  /** topic -> key -> the latest message kept for it, in the order keys first appeared. */
  private readonly retained = new Map<string, Map<string, unknown>>();
  private readonly subscribers = new Map<string, Set<string>>();
  /** Topic kept by its publisher -> that publisher, while it runs. */
  private readonly keepers = new Map<string, string>();

  constructor(
    private readonly deliver: Deliver,
    private readonly requestSnapshot: RequestSnapshot = () => {},
  ) {}

  /** Subscribes `subscriber` (a thread) to `topic`; what is kept for it is delivered at once, or asked for. */
  subscribe(subscriber: string, topic: string): void {
    let set = this.subscribers.get(topic);
    if (set === undefined) {
      set = new Set();
      this.subscribers.set(topic, set);
    }
    set.add(subscriber);
    const keeper = this.keepers.get(topic);
    // A publisher that has not published yet (or is restarting) sends its whole state when it does.
    if (keeper !== undefined) this.requestSnapshot(keeper, topic, subscriber);
    const kept = this.retained.get(topic);
    if (kept !== undefined && kept.size > 0) this.deliver(subscriber, [{ topic, messages: [...kept.values()] }]);
  }

  unsubscribe(subscriber: string, topic: string): void {
    this.subscribers.get(topic)?.delete(subscriber);
  }

  /**
   * Forgets every subscription of a thread that ended, and the topics it kept; its next run
   * subscribes again, and publishes its state again.
   */
  dropSubscriber(subscriber: string): void {
    for (const set of this.subscribers.values()) set.delete(subscriber);
    for (const [topic, keeper] of this.keepers) if (keeper === subscriber) this.keepers.delete(topic);
  }

  /** Routes the batches `publisher` (a thread) sent in one post. */
  publish(publisher: string, batches: readonly EventBatch[]): void {
    const outgoing = new Map<string, EventBatch[]>();
    for (const batch of batches) {
      if (batch.keptByPublisher === true) this.keepers.set(batch.topic, publisher);
      else this.keep(batch);
      for (const subscriber of this.recipients(batch)) {
        const list = outgoing.get(subscriber);
        if (list === undefined) outgoing.set(subscriber, [batch]);
        else list.push(batch);
      }
    }
    for (const [subscriber, list] of outgoing) this.deliver(subscriber, list);
  }

  private recipients(batch: EventBatch): Iterable<string> {
    const subscribers = this.subscribers.get(batch.topic) ?? new Set<string>();
    if (batch.to === undefined) return subscribers;
    // A snapshot for one subscriber, which may have left since it asked.
    return subscribers.has(batch.to) ? [batch.to] : [];
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
