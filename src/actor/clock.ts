// Time, injected: schedulers take a Clock so tests can drive them with a fake one (xstate's Clock,
// @sinonjs/fake-timers).

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `tick` every `ms` until the returned function is called. */
  every(ms: number, tick: () => void): () => void;
  /** Calls `run` once, `ms` from now, unless the returned function is called first. */
  after(ms: number, run: () => void): () => void;
  /** Resolves after `ms`. */
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  every(ms, tick) {
    const timer = setInterval(tick, ms);
    return () => clearInterval(timer);
  },
  after(ms, run) {
    const timer = setTimeout(run, ms);
    return () => clearTimeout(timer);
  },
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** A clock that moves only when told to; `advance` runs every tick that falls due, in order. */
export class ManualClock implements Clock {
  private timers: { every: number; next: number; tick: () => void }[] = [];

  constructor(private current = 0) {}

  now(): number {
    return this.current;
  }

  every(ms: number, tick: () => void): () => void {
    const timer = { every: ms, next: this.current + ms, tick };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((candidate) => candidate !== timer);
    };
  }

  after(ms: number, run: () => void): () => void {
    const cancel = this.every(ms, () => {
      cancel();
      run();
    });
    return cancel;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.after(ms, resolve));
  }

  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const due = this.timers.filter((timer) => timer.next <= target).sort((a, b) => a.next - b.next)[0];
      if (due === undefined) break;
      this.current = due.next;
      due.next += due.every;
      due.tick();
    }
    this.current = target;
  }
}
