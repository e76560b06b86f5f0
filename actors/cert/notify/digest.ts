// Daily digests (a channel's digest_at): the notices of a digest channel are held in
// the store's document notify-digest/<channel>.json (a file 0600 or a row, replaced at each notice) and, once a day at
// digest_at (UTC), put in the delivery queue (queue.ts) as one digest of every notice held, then
// cleared. A day without a notice sends nothing. A digest time that passed while certhub was stopped
// sends the digest at the next start. A crash between the queueing and the clearing sends the
// notices again in the next digest: at least once, as the queue delivers.
import type { Clock } from '../../../src/actor/clock.js';
import type { Logger } from '../../../src/log/record.js';
import type { Documents } from '../store/documents.js';
import type { DomainNotice } from '../domains/notices.js';
import type { DigestNotice, Notice } from './protocol.js';

export const digestDirName = 'notify-digest';

const dayMs = 86_400_000;
/** Notices one channel holds; past this many, the oldest goes (logged). */
const maxHeld = 1000;

/** The first instant after `now` at `minute` minutes past midnight UTC. */
export function nextDigestAt(now: number, minute: number): number {
  const midnight = now - (now % dayMs);
  const today = midnight + minute * 60_000;
  return today > now ? today : today + dayMs;
}

export interface DigestDeps {
  clock: Clock;
  log: Logger;
  /** Puts a digest in the delivery queue; resolves once it is on disk. */
  enqueue: (channel: string, digest: Notice) => Promise<void>;
  /** The digest channels: name -> digest_at in minutes after midnight UTC. */
  channels: ReadonlyMap<string, number>;
}

export class DigestBook {
  private readonly timers = new Map<string, () => void>();
  /** Writes and sends of one channel run in call order. */
  private readonly queues = new Map<string, Promise<void>>();
  private stopped = false;

  private constructor(
    private readonly documents: Documents,
    private readonly held: Map<string, DomainNotice[]>,
    private readonly deps: DigestDeps,
  ) {}

  /** Opens the digests of the store `documents` with the notices a previous run held; digests are sent after start(). */
  static async open(documents: Documents, deps: DigestDeps): Promise<DigestBook> {
    const folder = documents.within(digestDirName);
    const held = new Map<string, DomainNotice[]>([...deps.channels.keys()].map((name) => [name, []]));
    for (const file of await folder.list()) {
      const path = folder.where(file);
      const name = file.slice(0, -'.json'.length);
      if (!file.endsWith('.json')) continue;
      if (!held.has(name)) {
        deps.log.warn(`notify: ${path} holds the digest of no channel with digest_at in notify.channels; left as it is`);
        continue;
      }
      try {
        const { notices } = JSON.parse((await folder.read(file)) ?? 'null') as { notices: DomainNotice[] };
        if (!Array.isArray(notices)) throw new Error('no notices');
        held.set(name, notices);
      } catch (error) {
        deps.log.warn(`notify: ${path} is no digest (${error instanceof Error ? error.message : String(error)}); left as it is`);
      }
    }
    return new DigestBook(folder, held, deps);
  }

  /** Holds `notice` for the next digest of `channel`. */
  add(channel: string, notice: DomainNotice): void {
    const notices = this.held.get(channel);
    if (notices === undefined) return;
    notices.push(notice);
    if (notices.length > maxHeld) {
      notices.shift();
      this.deps.log.warn(`notify: the digest of ${channel} holds ${maxHeld} notices, the most it keeps; the oldest is dropped`);
    }
    void this.serialize(channel, () => this.write(channel));
  }

  /** The notices `channel` holds for its next digest. */
  pending(channel: string): readonly DomainNotice[] {
    return this.held.get(channel) ?? [];
  }

  /** Sends the digests whose time passed while certhub was stopped, and arms each channel's next. */
  start(): void {
    const now = this.deps.clock.now();
    for (const [channel, minute] of this.deps.channels) {
      const last = nextDigestAt(now, minute) - dayMs;
      if (this.pending(channel).some((notice) => Date.parse(notice.at) <= last)) this.send(channel);
      this.arm(channel, minute);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
    await this.idle();
  }

  /** Resolves once every write and digest queued so far is done. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.queues.values()]);
  }

  private arm(channel: string, minute: number): void {
    if (this.stopped) return;
    const now = this.deps.clock.now();
    this.timers.set(
      channel,
      this.deps.clock.after(nextDigestAt(now, minute) - now, () => {
        this.send(channel);
        this.arm(channel, minute);
      }),
    );
  }

  /** Queues one digest of every notice `channel` holds now, then forgets them. */
  private send(channel: string): void {
    void this.serialize(channel, async () => {
      const notices = [...this.pending(channel)];
      const [first] = notices;
      if (first === undefined) return;
      const digest: DigestNotice = { event: 'digest', from: first.at, at: new Date(this.deps.clock.now()).toISOString(), notices };
      await this.deps.enqueue(channel, digest);
      this.held.set(channel, this.pending(channel).slice(notices.length));
      await this.write(channel);
    });
  }

  private async write(channel: string): Promise<void> {
    const name = `${channel}.json`;
    const notices = this.pending(channel);
    if (notices.length === 0) await this.documents.remove(name);
    else await this.documents.write(name, `${JSON.stringify({ notices })}\n`);
  }

  private serialize(channel: string, job: () => Promise<void>): Promise<void> {
    const next = (this.queues.get(channel) ?? Promise.resolve()).then(job).catch((error: unknown) => {
      this.deps.log.error(`notify: the digest of ${channel} could not be kept: ${String(error)}`);
    });
    this.queues.set(channel, next);
    return next;
  }
}
