// Admin panel sessions: a random id in an HttpOnly, SameSite=Strict cookie, known to this front for
// `ttlMs` after its last use. The cert role runs one front, so one table holds every session; a
// restart logs everyone out, which the panel handles by asking for the key again.
import { randomBytes } from 'node:crypto';

export const sessionCookie = 'certhub_session';

export class Sessions {
  private readonly expiries = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

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
      this.expiries.delete(id);
      return false;
    }
    this.expiries.set(id, this.now() + this.ttlMs);
    return true;
  }

  close(id: string): void {
    this.expiries.delete(id);
  }

  private prune(): void {
    const now = this.now();
    for (const [id, expiry] of this.expiries) if (expiry <= now) this.expiries.delete(id);
  }
}
