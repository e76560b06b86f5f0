// Fetches with a retired token are logged once per domain and client an hour: an agent left with an
// old token retries for days, and each of its fetches saying the same thing would bury the rest of
// the log. The memory of what was logged is bounded; past it, the oldest is forgotten first.

/** The gap between two lines about one domain and client. */
export const retiredFetchLogGapMs = 3_600_000;
const remembered = 10_000;

export class RetiredFetchLog {
  /** `<domain> <client>` -> when it was last logged, oldest first. */
  private readonly logged = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether a fetch of `domain` by `client` is to be logged now (and notes that it was). */
  due(domain: string, client: string): boolean {
    const key = `${domain} ${client}`;
    const now = this.now();
    const last = this.logged.get(key);
    if (last !== undefined && now - last < retiredFetchLogGapMs) return false;
    this.logged.delete(key);
    this.logged.set(key, now);
    if (this.logged.size > remembered) this.logged.delete(this.logged.keys().next().value ?? '');
    return true;
  }
}
