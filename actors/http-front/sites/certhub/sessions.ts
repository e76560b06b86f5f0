// Admin panel sessions: a random id in an HttpOnly, SameSite=Strict cookie, known to this front for
// `ttlMs` after its last use. The cert role runs one front, so one table holds every session; a
// restart logs everyone out, which the panel handles by asking for the key again. What a session
// keeps open (its event streams) ends with it: a logout or an expiry also stops the live logs.
import { randomBytes } from 'node:crypto';

export const sessionCookie = 'certhub_session';

/** How often ended sessions are looked for, so that their streams close within this of the expiry. */
const sweepMs = 60_000;

export class Sessions {
  private readonly expiries = new Map<string, number>();
  private readonly endListeners = new Map<string, Set<() => void>>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    setInterval(() => this.prune(), sweepMs).unref();
  }

  open(): string {
    this.prune();
    const id = randomBytes(32).toString('base64url');
    this.expiries.set(id, this.now() + this.ttlMs);
    return id;
  }

  /** Whether `id` is a live session; using it extends it. Map lookup by the random id: nothing to time. */
  check(id: string): boolean {
    const expiry = this.expiries.get(id);
    if (expiry === undefined || expiry <= this.now()) {
      this.end(id);
      return false;
    }
    this.expiries.set(id, this.now() + this.ttlMs);
    return true;
  }

  close(id: string): void {
    this.end(id);
  }

  /** Calls `listener` once when session `id` ends (logout or expiry); the function returned forgets it. */
  onEnd(id: string, listener: () => void): () => void {
    let listeners = this.endListeners.get(id);
    if (listeners === undefined) {
      listeners = new Set();
      this.endListeners.set(id, listeners);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.endListeners.get(id) === listeners) this.endListeners.delete(id);
    };
  }

  /** Ends the sessions whose time is up, and closes what they kept open. */
  prune(): void {
    const now = this.now();
    for (const [id, expiry] of this.expiries) if (expiry <= now) this.end(id);
  }

  private end(id: string): void {
    this.expiries.delete(id);
    const listeners = this.endListeners.get(id);
    this.endListeners.delete(id);
    for (const listener of listeners ?? []) listener();
  }
}
