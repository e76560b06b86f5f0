// A list of entries per domain, one document each under a folder of the store (`hosts/<name>.json`,
// `host-tokens/<name>.json`), replaced whole at each change and removed when the list is empty, so a
// change costs the same with ten domains or ten thousand and a crash leaves the list before or after
// it, never between. A document that does not read is reported and skipped, never half loaded.
import type { z } from 'zod';
import { hostNameProblem } from '../../../src/net/host-names.js';
import { KeyedSerializer } from '../../../src/store/keyed-serializer.js';
import type { Documents } from './documents.js';

const suffix = '.json';

export interface DomainListsShape<Entry> {
  /** The document's one field, holding the list (`hosts`, `tokens`). */
  field: string;
  entry: z.ZodType<Entry>;
  /** An entry's key within its domain's list. */
  id: (entry: Entry) => string;
  /** What a list is, for messages: "host list". */
  what: string;
}

export interface LoadedDomainLists<Entry> {
  /** Domain name -> its entries by id. */
  lists: Map<string, Map<string, Entry>>;
  /** Documents that could not be read (skipped, left in place), one line each for the log. */
  problems: string[];
}

export class DomainLists<Entry> {
  /** Writes to one domain's list run in call order, so an older list never lands after a newer one. */
  private readonly writes = new KeyedSerializer();

  private constructor(
    private readonly documents: Documents,
    private readonly shape: DomainListsShape<Entry>,
  ) {}

  /** The lists in `documents` (a folder of the store) and every domain's entries in it. */
  static async open<Entry>(documents: Documents, shape: DomainListsShape<Entry>): Promise<{ store: DomainLists<Entry>; loaded: LoadedDomainLists<Entry> }> {
    const store = new DomainLists(documents, shape);
    return { store, loaded: await store.loadAll() };
  }

  write(name: string, entries: readonly Entry[]): Promise<void> {
    if (entries.length === 0) return this.remove(name);
    const document = this.documentOf(name);
    return this.writes.run(name, () => this.documents.write(document, `${JSON.stringify({ [this.shape.field]: entries })}\n`));
  }

  remove(name: string): Promise<void> {
    const document = this.documentOf(name);
    return this.writes.run(name, () => this.documents.remove(document));
  }

  /** Resolves when every write started so far has finished (for shutdown). */
  async flush(): Promise<void> {
    await this.writes.settled();
  }

  private async loadAll(): Promise<LoadedDomainLists<Entry>> {
    const lists = new Map<string, Map<string, Entry>>();
    const problems: string[] = [];
    for (const document of await this.documents.list()) {
      if (!document.endsWith(suffix)) continue;
      const where = this.documents.where(document);
      let parsed: unknown;
      try {
        parsed = JSON.parse((await this.documents.read(document)) ?? 'null');
      } catch (error) {
        problems.push(`${where} cannot be read: ${(error as Error).message}; skipped`);
        continue;
      }
      const entries = (parsed as Record<string, unknown> | null)?.[this.shape.field];
      const result = this.shape.entry.array().safeParse(entries);
      if (!result.success) {
        const issue = result.error.issues[0];
        const path = [this.shape.field, ...(issue?.path ?? [])].join('.');
        problems.push(`${where} holds no valid ${this.shape.what} (${path}: ${issue?.message ?? ''}); skipped`);
        continue;
      }
      lists.set(document.slice(0, -suffix.length), new Map(result.data.map((entry) => [this.shape.id(entry), entry])));
    }
    return { lists, problems };
  }

  private documentOf(name: string): string {
    // Names reach here from the domains actor's book; this keeps any other string out of the path.
    if (hostNameProblem(name) !== undefined) throw new Error(`not a domain name: ${JSON.stringify(name)}`);
    return `${name}${suffix}`;
  }
}
