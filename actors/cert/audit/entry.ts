// One line of the audit log: who did what, from where, to which domain, with what outcome. An entry
// names a credential by a digest prefix (never the admin key, a session id or a token) and holds no
// key material: the log can be read, copied and shipped like any other log. The panel imports this
// file (through ../browser.ts): it imports nothing of Node's.
/** What an entry records. `fetch` and `download.*` are material handed out; `audit.torn` is the writer's own. */
export const auditActions = [
  'login',
  'logout',
  'add',
  'edit',
  'remove',
  'rotate',
  'retry',
  'renew',
  'rekey',
  'revoke',
  'host.remove',
  'fetch',
  'download.cert',
  'download.key',
  'audit.torn',
  'download.p12',
  'host-token.issue',
  'host-token.revoke',
] as const;

export type AuditAction = (typeof auditActions)[number];

/** What the front sends: an entry without its place in the chain. */
export interface AuditInput {
  /** ISO 8601, UTC. */
  at: string;
  action: AuditAction;
  /**
   * The credential used: `key` (the admin key as a bearer token), `session:<8 hex>`, `token:<16 hex>`
   * (a domain's token or a host token), or `none` (a login that failed); the hex is of the credential's SHA-256.
   */
  by: string;
  /** The client's address (X-Forwarded-For from a trusted proxy); empty for the writer's own entries. */
  client: string;
  /** The domain's full name (or the name asked for, when refused); null when none. */
  domain: string | null;
  /** `ok`, or the error code the request was refused with. */
  outcome: string;
  /** Requests merged into this entry: fetches of one domain with one token from one client within a second. */
  count?: number;
  /** A few words more: the new target of an edit, the bytes a torn line held. */
  note?: string;
}

/** An entry as the file holds it: its position, and the SHA-256 of the line before (hex). */
export interface AuditEntry extends AuditInput {
  seq: number;
  prev: string;
}
