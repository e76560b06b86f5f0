// The events benchmark's messages: numbered events one publisher sends to every subscriber, and the
// acknowledgement each subscriber publishes once it has the last event of a run.
export interface BenchEvent {
  run: number;
  seq: number;
  /** The run's size: the subscriber acknowledges event `count - 1`. */
  count: number;
}

export interface BenchAck {
  run: number;
  subscriber: string;
  received: number;
}
