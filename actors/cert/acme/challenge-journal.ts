// The challenge TXT records written and not yet removed, kept in `acme/challenges.json`: an entry is
// written before its record, and dropped once the record is removed. A `kill -9` in the middle of an
// order, or a removal that failed, leaves the entry behind, and the next start removes those records;
// without it they would stay in the zone for good. Concurrent changes share one atomic write.
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../../../src/store/atomic.js';

export interface ChallengeEntry {
  name: string;
  value: string;
}

export class ChallengeJournal {
  private readonly entries = new Map<string, ChallengeEntry>();
  /** The last write started; the next one waits for it. */
  private writing: Promise<void> = Promise.resolve();
  /** A write not started yet, shared by every change made before it starts. */
  private queued: Promise<void> | undefined;

  private constructor(private readonly path: string) {}

  /** The journal at `path` and the entries a previous run left in it (an unreadable file counts as none). */
  static async open(path: string): Promise<{ journal: ChallengeJournal; leftover: ChallengeEntry[] }> {
    const journal = new ChallengeJournal(path);
    let leftover: ChallengeEntry[] = [];
    try {
      const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
      if (Array.isArray(parsed))
        leftover = parsed.filter(
          (entry): entry is ChallengeEntry => typeof (entry as ChallengeEntry).name === 'string' && typeof (entry as ChallengeEntry).value === 'string',
        );
    } catch {
      // Missing (no order ever ran) or unreadable: nothing known to clean up.
    }
    for (const entry of leftover) journal.entries.set(keyOf(entry), entry);
    return { journal, leftover };
  }

  /** Resolves once the entry is on disk: only then may its record be written. */
  add(entry: ChallengeEntry): Promise<void> {
    this.entries.set(keyOf(entry), entry);
    return this.save();
  }

  /** After the record was removed. */
  remove(entry: ChallengeEntry): Promise<void> {
    this.entries.delete(keyOf(entry));
    return this.save();
  }

  /** A write that starts after this call, so it holds every change made so far. */
  private save(): Promise<void> {
    this.queued ??= this.writing.then(() => {
      this.queued = undefined;
      return writeFileAtomic(this.path, `${JSON.stringify([...this.entries.values()])}\n`, { mode: 0o600 });
    });
    this.writing = this.queued.catch(() => {});
    return this.queued;
  }
}

function keyOf({ name, value }: ChallengeEntry): string {
  return `${name} ${value}`;
}
