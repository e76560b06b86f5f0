// The audit actor: the one writer of certhub's audit log (audit.jsonl in the data folder). The front
// hands it what admins did and what material it gave out; the admin API reads pages of it back.
import type { AuditEntry, AuditInput } from './entry.js';

export interface AuditConfig {
  dataDir: string;
}

/** GET /api/admin/audit: newest first, filtered by action and domain, `before` a seq for the next page. */
export interface AuditQuery {
  action?: string;
  domain?: string;
  /** Only entries with a smaller seq (the `next_before` of the page before). */
  before?: number;
  limit: number;
}

export interface AuditPage {
  entries: AuditEntry[];
  /** The `before` of the next (older) page; null on the last page. */
  next_before: number | null;
}

export interface AuditApi {
  /** Appends the entries, in order, and resolves once they are on disk (fsync). */
  append(entries: AuditInput[]): Promise<void>;
  page(query: AuditQuery): Promise<AuditPage>;
}
