// The orders started and not yet finished, one per domain name, kept in the document `orders.json` of
// the CA's account folder (secret: an entry holds the certificate key once finalizing starts). An order that failed after it was created
// (propagation timeout, a DNS provider error, a crash, the caller's deadline) stays pending at the CA,
// and a CA enforcing ARI refuses a second order replacing the same certificate while it lives
// (boulder's alreadyReplaced): the next attempt resumes it instead, also after a restart.
import { GroupCommit } from '../../../src/store/group-commit.js';
import type { Documents } from '../store/documents.js';

const journalName = 'orders.json';

export interface OrderEntry {
  /** The order's URL at the CA. */
  url: string;
  /** The ARI CertID it names in `replaces`, if any. */
  replaces?: string;
  /** The key its CSR was made with, written before finalize: a finalized order's certificate is for this key. */
  keyPem?: string;
  /** The host's CSR it was finalized with, for an own_key domain (no key known here). */
  csrPem?: string;
}

export interface OrderLedger {
  get(name: string): OrderEntry | undefined;
  set(name: string, entry: OrderEntry): Promise<void>;
  delete(name: string): Promise<void>;
}

export class OrderJournal implements OrderLedger {
  private readonly writes = new GroupCommit();

  private constructor(
    private readonly documents: Documents,
    private readonly entries: Map<string, OrderEntry>,
  ) {}

  /** The journal of an account's folder with what a previous run left in it (a missing or unreadable one counts as empty). */
  static async open(documents: Documents): Promise<OrderJournal> {
    const entries = new Map<string, OrderEntry>();
    try {
      const parsed: unknown = JSON.parse((await documents.read(journalName)) ?? '{}');
      if (typeof parsed === 'object' && parsed !== null) {
        for (const [name, entry] of Object.entries(parsed as Record<string, Partial<OrderEntry>>)) {
          if (typeof entry.url !== 'string') continue;
          entries.set(name, {
            url: entry.url,
            ...(typeof entry.replaces === 'string' ? { replaces: entry.replaces } : {}),
            ...(typeof entry.keyPem === 'string' ? { keyPem: entry.keyPem } : {}),
            ...(typeof entry.csrPem === 'string' ? { csrPem: entry.csrPem } : {}),
          });
        }
      }
    } catch {
      // No order was ever left open, or the file is unreadable: the next orders start afresh.
    }
    return new OrderJournal(documents, entries);
  }

  get(name: string): OrderEntry | undefined {
    return this.entries.get(name);
  }

  set(name: string, entry: OrderEntry): Promise<void> {
    this.entries.set(name, entry);
    return this.save();
  }

  delete(name: string): Promise<void> {
    if (!this.entries.delete(name)) return Promise.resolve();
    return this.save();
  }

  private save(): Promise<void> {
    return this.writes.schedule(() => this.documents.write(journalName, `${JSON.stringify(Object.fromEntries(this.entries))}\n`));
  }
}
