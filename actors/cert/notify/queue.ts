// The durable delivery queue: one document per pending delivery in the store's notify-queue/ (a file
// replaced atomically, or a row: ../store/documents.ts), written before the first attempt and after
// each failed one, and removed once delivered or given up. A crash at any instant leaves each one old
// or new, never a mix, so a restart resumes every delivery. Delivery is at least once: a crash between a receiver's
// 2xx and the removal sends it again, with the same id (X-Certhub-Delivery) for the receiver to drop.
// Failed attempts are retried with exponential backoff and jitter until give_up_after_hours.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../src/actor/clock.js';
import type { Logger } from '../../../src/log/record.js';
import type { Documents } from '../store/documents.js';
import { backoffDelay, type BackoffSettings } from '../domains/backoff.js';
import { noticeEvents } from '../domains/notices.js';
import type { Notice } from './protocol.js';

export interface Delivery {
  /** Sent as X-Certhub-Delivery (and in an e-mail's headers): the same on every attempt. */
  id: string;
  /** The name of the channel it goes to. */
  channel: string;
  notice: Notice;
  created_at: string;
  /** Failed attempts so far. */
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
}

/** What one attempt came to: taken (2xx), refused for good (410, an SMTP 5xx), or to be tried again. */
export type Outcome = { type: 'delivered' } | { type: 'gone'; reason: string } | { type: 'retry'; reason: string; retryAfterMs?: number };

/** A channel as the queue sees it; `where` names it in logs without a secret (a URL's origin, an SMTP host). */
export interface Sender {
  name: string;
  where: string;
  send(delivery: Delivery, signal: AbortSignal): Promise<Outcome>;
}

export interface QueueSettings extends BackoffSettings {
  /** A delivery not taken this long after it was made is dropped (logged). */
  giveUpAfterMs: number;
  /** Attempts under way at once. */
  parallel: number;
}

export const defaultQueueSettings: QueueSettings = { baseMs: 30_000, maxMs: 3_600_000, jitter: 0.2, giveUpAfterMs: 24 * 3_600_000, parallel: 4 };

export interface QueueDeps {
  clock: Clock;
  log: Logger;
  senders: readonly Sender[];
  settings?: QueueSettings;
  random?: () => number;
}

export const queueDirName = 'notify-queue';

/** A timer's delay is at most 2^31 - 1 ms: a later attempt wakes the timer once a day until it is near. */
const longestWaitMs = 86_400_000;

export class DeliveryQueue {
  private readonly waiting = new Map<string, Delivery>();
  private readonly inFlight = new Map<string, AbortController>();
  private readonly work = new Set<Promise<void>>();
  private readonly senders: Map<string, Sender>;
  private readonly settings: QueueSettings;
  private cancelTimer: (() => void) | undefined;
  private timerAt: number | undefined;
  private stopped = false;

  private constructor(
    private readonly documents: Documents,
    private readonly deps: QueueDeps,
  ) {
    this.senders = new Map(deps.senders.map((sender) => [sender.name, sender]));
    this.settings = deps.settings ?? defaultQueueSettings;
  }

  /** Opens the queue of the store `documents`, with every delivery a previous run left pending; attempts start with start(). */
  static async open(documents: Documents, deps: QueueDeps): Promise<DeliveryQueue> {
    const queue = new DeliveryQueue(documents.within(queueDirName), deps);
    for (const name of (await queue.documents.list()).sort()) if (name.endsWith('.json')) await queue.load(name);
    return queue;
  }

  /** The deliveries not yet taken, oldest first. */
  pending(): Delivery[] {
    return [...this.waiting.values()].sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
  }

  start(): void {
    this.arm();
  }

  /** Adds a delivery of `notice` to each channel named; it is on disk before its first attempt. Resolves once written. */
  enqueue(channels: readonly string[], notice: Notice): Promise<void> {
    const now = new Date(this.deps.clock.now()).toISOString();
    const writes = channels.map((channel) => {
      const delivery: Delivery = { id: randomUUID(), channel, notice, created_at: now, attempts: 0, next_attempt_at: now, last_error: null };
      const written = this.write(delivery).then(
        () => this.ready(delivery),
        (error: unknown) => {
          // Kept in memory all the same: it is lost only if certhub stops before it is delivered.
          this.deps.log.error(`notify: ${deliveryWords(notice)} to ${channel} could not be written: ${String(error)}`);
          this.ready(delivery);
        },
      );
      this.track(written);
      return written;
    });
    return Promise.all(writes).then(() => {});
  }

  /** Stops attempting: attempts under way are cut short and stay pending, as on disk. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelTimer?.();
    for (const controller of this.inFlight.values()) controller.abort();
    while (this.work.size > 0) await Promise.allSettled([...this.work]);
  }

  private async load(name: string): Promise<void> {
    const path = this.documents.where(name);
    let delivery: Delivery;
    try {
      delivery = parseDelivery((await this.documents.read(name)) ?? '');
    } catch (error) {
      this.deps.log.warn(`notify: ${path} is no delivery (${error instanceof Error ? error.message : String(error)}); left as it is`);
      return;
    }
    if (!this.senders.has(delivery.channel)) {
      this.deps.log.warn(`notify: ${deliveryWords(delivery.notice)} is dropped: no channel ${delivery.channel} in notify.channels`);
      await this.remove(delivery);
      return;
    }
    this.waiting.set(delivery.id, delivery);
  }

  private ready(delivery: Delivery): void {
    if (!this.senders.has(delivery.channel)) return;
    this.waiting.set(delivery.id, delivery);
    this.arm();
  }

  private track(work: Promise<void>): void {
    this.work.add(work);
    void work.finally(() => this.work.delete(work));
  }

  private arm(): void {
    if (this.stopped) return;
    const now = this.deps.clock.now();
    for (const delivery of this.pending()) {
      if (this.inFlight.size >= this.settings.parallel) break;
      if (this.inFlight.has(delivery.id) || Date.parse(delivery.next_attempt_at) > now) continue;
      this.track(this.attempt(delivery));
    }
    let earliest: number | undefined;
    for (const delivery of this.waiting.values()) {
      if (this.inFlight.has(delivery.id)) continue;
      const at = Date.parse(delivery.next_attempt_at);
      if (earliest === undefined || at < earliest) earliest = at;
    }
    // Full: the end of an attempt arms again.
    if (this.inFlight.size >= this.settings.parallel) earliest = undefined;
    if (earliest === this.timerAt) return;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.timerAt = earliest;
    if (earliest === undefined) return;
    this.cancelTimer = this.deps.clock.after(Math.min(Math.max(0, earliest - now), longestWaitMs), () => {
      this.cancelTimer = undefined;
      this.timerAt = undefined;
      this.arm();
    });
  }

  private async attempt(delivery: Delivery): Promise<void> {
    const sender = this.senders.get(delivery.channel);
    if (sender === undefined) return;
    const controller = new AbortController();
    this.inFlight.set(delivery.id, controller);
    const what = `${deliveryWords(delivery.notice)} to ${sender.name} (${sender.where})`;
    try {
      const outcome = await sender
        .send(delivery, controller.signal)
        .catch((error: unknown): Outcome => ({ type: 'retry', reason: error instanceof Error ? error.message : String(error) }));
      // Cut short by stop(): the file stays as it was, attempted again at the next start.
      if (controller.signal.aborted) return;
      await this.settle(delivery, outcome, what);
    } catch (error) {
      this.deps.log.error(`notify: ${what} could not be written: ${String(error)}`);
    } finally {
      this.inFlight.delete(delivery.id);
      this.arm();
    }
  }

  private async settle(delivery: Delivery, outcome: Outcome, what: string): Promise<void> {
    const attempts = delivery.attempts + 1;
    if (outcome.type === 'delivered') {
      await this.remove(delivery);
      this.deps.log.debug(`notify: ${what} delivered (attempt ${attempts})`);
      return;
    }
    if (outcome.type === 'gone') {
      await this.remove(delivery);
      this.deps.log.warn(`notify: ${what} refused for good (${outcome.reason}); not sent again`);
      return;
    }
    const now = this.deps.clock.now();
    const delay = Math.min(this.settings.maxMs, Math.max(backoffDelay(attempts, this.settings, this.deps.random), outcome.retryAfterMs ?? 0));
    const giveUpAt = Date.parse(delivery.created_at) + this.settings.giveUpAfterMs;
    if (now + delay > giveUpAt) {
      await this.remove(delivery);
      this.deps.log.warn(`notify: ${what} failed ${attempts} times since ${delivery.created_at} (last: ${outcome.reason}); given up`);
      return;
    }
    const next: Delivery = { ...delivery, attempts, next_attempt_at: new Date(now + delay).toISOString(), last_error: outcome.reason };
    await this.write(next);
    this.waiting.set(next.id, next);
    this.deps.log.warn(`notify: ${what} failed (attempt ${attempts}: ${outcome.reason}); next attempt at ${next.next_attempt_at}`);
  }

  private write(delivery: Delivery): Promise<void> {
    return this.documents.write(documentOf(delivery), `${JSON.stringify(delivery)}\n`);
  }

  private async remove(delivery: Delivery): Promise<void> {
    this.waiting.delete(delivery.id);
    await this.documents.remove(documentOf(delivery));
  }
}

function documentOf(delivery: Delivery): string {
  return `${delivery.id}.json`;
}

/** A delivery in the log: `the renewal_failed delivery of app.example.com`, `the digest delivery of 3 notices`. */
function deliveryWords(notice: Notice): string {
  if (notice.event === 'digest') return `the digest delivery of ${notice.notices.length} notice${notice.notices.length === 1 ? '' : 's'}`;
  return `the ${notice.event} delivery of ${notice.domain}`;
}

const idPattern = /^[0-9a-f-]{36}$/;

/** A notice as a delivery file holds it, checked enough to be sent. */
function isNotice(value: unknown): value is Notice {
  if (typeof value !== 'object' || value === null) return false;
  const notice = value as Partial<Record<string, unknown>>;
  if (notice.event === 'digest') return Array.isArray(notice.notices) && notice.notices.every((each) => isNotice(each) && each.event !== 'digest');
  return (noticeEvents as readonly unknown[]).includes(notice.event) && typeof notice.domain === 'string';
}

/** A delivery file's content, checked enough that a hand-edited or foreign file is refused, not sent. */
export function parseDelivery(text: string): Delivery {
  const value = JSON.parse(text) as Partial<Delivery> | null;
  if (typeof value !== 'object' || value === null) throw new Error('not an object');
  const { id, channel, notice, created_at, attempts, next_attempt_at, last_error } = value;
  if (typeof id !== 'string' || !idPattern.test(id)) throw new Error('no id');
  if (typeof channel !== 'string') throw new Error('no channel');
  if (!isNotice(notice)) throw new Error('no notice');
  if (typeof created_at !== 'string' || Number.isNaN(Date.parse(created_at))) throw new Error('no created_at');
  if (typeof next_attempt_at !== 'string' || Number.isNaN(Date.parse(next_attempt_at))) throw new Error('no next_attempt_at');
  if (typeof attempts !== 'number' || !Number.isInteger(attempts) || attempts < 0) throw new Error('no attempts');
  return { id, channel, notice, created_at, attempts, next_attempt_at, last_error: typeof last_error === 'string' ? last_error : null };
}
