// Wakes its owner when keys fall due: renewals, ARI checks, retries. One timer, armed for the
// earliest due instant but never further than `maxSleepMs` ahead, so the set is checked at least
// that often whatever happens to the clock (renewal: every 2 hours, so 6-day certificates work).
import type { Clock } from '../../../src/actor/clock.js';

export const maxRenewalCheckMs = 2 * 3_600_000;

export class DueScheduler<Key> {
  private readonly due = new Map<Key, number>();
  private armedAt: number | undefined;
  private cancel: (() => void) | undefined;
  private stopped = true;

  /** `onDue` gets every key whose instant has come, removed from the schedule. */
  constructor(
    private readonly clock: Clock,
    private readonly onDue: (keys: Key[]) => void,
    private readonly maxSleepMs = maxRenewalCheckMs,
  ) {}

  start(): void {
    this.stopped = false;
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.disarm();
  }

  /** Schedules `key` at `at` (epoch ms), replacing its earlier instant. */
  set(key: Key, at: number): void {
    this.due.set(key, at);
    if (this.armedAt === undefined || at < this.armedAt) this.arm();
  }

  delete(key: Key): void {
    this.due.delete(key);
  }

  /** The instant `key` is due at, if scheduled. */
  dueAt(key: Key): number | undefined {
    return this.due.get(key);
  }

  get size(): number {
    return this.due.size;
  }

  /** Removes and returns every key due by `now`. */
  takeDue(now = this.clock.now()): Key[] {
    const keys: Key[] = [];
    for (const [key, at] of this.due) {
      if (at <= now) keys.push(key);
    }
    for (const key of keys) this.due.delete(key);
    return keys;
  }

  private arm(): void {
    if (this.stopped) return;
    this.disarm();
    const now = this.clock.now();
    let next = now + this.maxSleepMs;
    for (const at of this.due.values()) if (at < next) next = at;
    const wait = Math.max(0, next - now);
    this.armedAt = now + wait;
    this.cancel = this.clock.after(wait, () => {
      this.disarm();
      const keys = this.takeDue();
      this.arm();
      if (keys.length > 0) this.onDue(keys);
    });
  }

  private disarm(): void {
    this.cancel?.();
    this.cancel = undefined;
    this.armedAt = undefined;
  }
}
