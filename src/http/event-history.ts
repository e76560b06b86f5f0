// The recent events of a stream whose events carry ids, so that a browser reconnecting with
// `Last-Event-ID` gets what it missed instead of a full state (the WHATWG EventSource reconnection
// model). Bounded: a client that was away longer than the history holds gets the full state again.

export interface StreamEvent {
  id: string;
  /** The `event:` field; the browser's `message` event when left out. */
  event?: string;
  data: string;
}

export class EventHistory {
  private readonly events: StreamEvent[] = [];

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('an event history holds at least one event');
  }

  /** Remembers an event, forgetting the oldest past the capacity. Ids must not repeat. */
  add(event: StreamEvent): void {
    this.events.push(event);
    if (this.events.length > this.capacity) this.events.shift();
  }

  /** The events after the one with `id`, oldest first; undefined when that event is not (or no longer) held. */
  after(id: string): StreamEvent[] | undefined {
    for (let index = this.events.length - 1; index >= 0; index--) {
      if (this.events[index]?.id === id) return this.events.slice(index + 1);
    }
    return undefined;
  }

  /** The id of the newest event, if any. */
  get lastId(): string | undefined {
    return this.events.at(-1)?.id;
  }
}
