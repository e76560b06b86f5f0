// One-for-one restart policy with exponential backoff and a restart intensity limit, after Erlang/OTP's
// supervisor: more than `maxRestarts` restarts within `windowMs` means the fault is not transient.

export interface RestartOptions {
  maxRestarts: number;
  windowMs: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
}

export type RestartDecision = { action: 'restart'; delayMs: number; restartsInWindow: number } | { action: 'give-up'; restartsInWindow: number };

export class RestartHistory {
  private restarts: number[] = [];

  constructor(private readonly options: RestartOptions) {}

  /** Records a crash at `now` (ms) and says what to do about it. */
  onCrash(now: number): RestartDecision {
    this.restarts = this.restarts.filter((at) => now - at < this.options.windowMs);
    if (this.restarts.length >= this.options.maxRestarts) {
      return { action: 'give-up', restartsInWindow: this.restarts.length };
    }
    const delayMs = Math.min(this.options.initialBackoffMs * 2 ** this.restarts.length, this.options.maxBackoffMs);
    this.restarts.push(now);
    return { action: 'restart', delayMs, restartsInWindow: this.restarts.length };
  }
}
