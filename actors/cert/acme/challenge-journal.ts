// The challenge TXT records written and not yet removed, kept in the document `challenges.json` of `acme/`: an entry is
// written before its record, and dropped once the record is removed. A `kill -9` in the middle of an
// order, or a removal that failed, leaves the entry behind, and the next start removes those records;
// without it they would stay in the zone for good. Concurrent changes share one atomic write.
import { GroupCommit } from '../../../src/store/group-commit.js';
import type { Documents } from '../store/documents.js';

const journalName = 'challenges.json';

export interface ChallengeEntry {
  name: string;
  value: string;
}

export class ChallengeJournal {
  private readonly entries = new Map<string, ChallengeEntry>();
  private readonly writes = new GroupCommit();

  private constructor(private readonly documents: Documents) {}

  /** The journal and the entries a previous run left in it (an unreadable one counts as none). */
  static async open(documents: Documents): Promise<{ journal: ChallengeJournal; leftover: ChallengeEntry[] }> {
    const journal = new ChallengeJournal(documents);
    let leftover: ChallengeEntry[] = [];
    try {
      const parsed: unknown = JSON.parse((await documents.read(journalName)) ?? '[]');
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
    return this.writes.schedule(() => this.documents.write(journalName, `${JSON.stringify([...this.entries.values()])}\n`));
  }
}

function keyOf({ name, value }: ChallengeEntry): string {
  return `${name} ${value}`;
}
