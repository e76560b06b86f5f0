// Admin panel sessions: a random id in an HttpOnly, SameSite=Strict cookie, known to this front for
// `ttlMs` after its last use and never past `lifetimeMs` after the login (a stolen cookie kept busy
// does not live for ever). The cert role runs one front, so one table holds every session; a restart
// (the only way to change the admin key) logs everyone out, which the panel handles by asking for the
// key again. What a session keeps open (its event streams) ends with it: a logout or an expiry also
// stops the live logs.
import { randomBytes } from 'node:crypto';

/**
 * The cookie's name. Over HTTPS with the `__Host-` prefix: browsers then take it only from this exact
 * host, Secure, for the whole path, so a sibling subdomain (which certhub itself creates) cannot set
 * one that shadows it (RFC 6265bis section 4.1.3.2).
 */
export function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-certhub_session' : 'certhub_session';
}

/** The absolute lifetime of a session, however busy. */
export const sessionLifetimeMs = 12 * 3_600_000;

/** How often ended sessions are looked for, so that their streams close within this of the expiry. */
const sweepMs = 60_000;

export class Sessions {
  private readonly expiries = new Map<string, number>();
  /** When each session ends whatever its use. */
  private readonly deadlines = new Map<string, number>();
  private readonly endListeners = new Map<string, Set<() => void>>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly lifetimeMs: number = sessionLifetimeMs,
  ) {
    setInterval(() => this.prune(), sweepMs).unref();
  }

  open(): string {
    this.prune();
    const id = randomBytes(32).toString('base64url');
    this.expiries.set(id, this.now() + this.ttlMs);
    this.deadlines.set(id, this.now() + this.lifetimeMs);
    return id;
  }

  /** Whether `id` is a live session; using it extends it. Map lookup by the random id: nothing to time. */
  check(id: string): boolean {
    const expiry = this.expiries.get(id);
    if (expiry === undefined || expiry <= this.now()) {
      this.end(id);
      return false;
    }
    this.expiries.set(id, Math.min(this.now() + this.ttlMs, this.deadlines.get(id) ?? 0));
    return true;
  }

  close(id: string): void {
    this.end(id);
  }

  /** Ends every session: a logout ends them all, since any of them may be a copied cookie. */
  closeAll(): void {
    for (const id of [...this.expiries.keys()]) this.end(id);
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

  /** Seconds the cookie of a session opened now should be kept by the browser. */
  get lifetimeSeconds(): number {
    return Math.floor(this.lifetimeMs / 1000);
  }

  private end(id: string): void {
    this.expiries.delete(id);
    this.deadlines.delete(id);
    const listeners = this.endListeners.get(id);
    this.endListeners.delete(id);
    for (const listener of listeners ?? []) listener();
  }
}
