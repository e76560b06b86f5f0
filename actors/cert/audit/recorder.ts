// The front's side of the audit log: admin actions are written before their answer goes out (an
// action answered is an action recorded, unless the disk refuses, which is logged as an error);
// fetches of material with a domain's token are merged per domain, token and client, and sent once
// a second, as the fetch records are, so the hot path pays a map lookup and no thread hop.
import type { PeerLink } from '../../../src/actor/rpc.js';
import type { Logger } from '../../../src/log/record.js';
import { createHash } from 'node:crypto';
import type { AuditAction, AuditInput } from './entry.js';
import type { AuditApi } from './protocol.js';

const fetchReportMs = 1000;

/** What an admin request is known by before it runs. */
export interface AuditSubject {
  action: AuditAction;
  /** The credential (entry.ts): adminCredential() of the request's principal. */
  by: string;
  client: string;
  domain: string | null;
  note?: string;
}

/** A credential as an entry names it: a prefix of its SHA-256 (16 hex digits for a token, 8 for a session). */
export function credentialId(kind: 'session' | 'token', secret: string): string {
  const digest = createHash('sha256').update(secret).digest('hex');
  return `${kind}:${digest.slice(0, kind === 'token' ? 16 : 8)}`;
}

/** How an entry names an admin: `key` for the admin key as a bearer token, else the session's digest. */
export function adminCredential(session: string | null): string {
  return session === null ? 'key' : credentialId('session', session);
}

export class AuditRecorder {
  private readonly fetches = new Map<string, AuditInput>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly link: PeerLink<AuditApi>,
    private readonly log: Logger,
  ) {
    this.timer = setInterval(() => this.flushFetches(), fetchReportMs);
    this.timer.unref();
  }

  /** Records `subject` with the outcome of `work` (its error's code when it throws), then answers as `work` did. */
  async around<T>(subject: AuditSubject, work: () => Promise<T>, domainOf?: (result: T) => string): Promise<T> {
    try {
      const result = await work();
      await this.record(subject, 'ok', domainOf?.(result));
      return result;
    } catch (error) {
      await this.record(subject, errorCode(error));
      throw error;
    }
  }

  /** An admin action whose outcome is known already. */
  async record(subject: AuditSubject, outcome: string, domain?: string): Promise<void> {
    const entry: AuditInput = {
      at: new Date().toISOString(),
      action: subject.action,
      by: subject.by,
      client: subject.client,
      domain: domain ?? subject.domain,
      outcome,
      ...(subject.note === undefined ? {} : { note: subject.note }),
    };
    await this.link
      .call((api) => api.append([entry]))
      .catch((error: unknown) => {
        this.log.error(`audit: the ${entry.action} of ${entry.domain ?? 'certhub'} by ${entry.client} was not recorded: ${String(error)}`);
      });
  }

  /** A domain's certificate and key handed out for its token. */
  fetched(domain: string, tokenId: string, client: string): void {
    const key = `${domain}\n${tokenId}\n${client}`;
    const merged = this.fetches.get(key);
    if (merged !== undefined) {
      merged.count = (merged.count ?? 1) + 1;
      return;
    }
    this.fetches.set(key, { at: new Date().toISOString(), action: 'fetch', by: tokenId, client, domain, outcome: 'ok', count: 1 });
  }

  private flushFetches(): void {
    if (this.fetches.size === 0) return;
    const batch = [...this.fetches.values()];
    this.fetches.clear();
    this.link
      .call((api) => api.append(batch))
      .catch((error: unknown) => {
        this.log.error(`audit: ${batch.length} fetch entries were not recorded: ${String(error)}`);
      });
  }

  /** Sends what is merged still; the front stops. */
  stop(): void {
    clearInterval(this.timer);
    this.flushFetches();
  }
}

/** A domain's token as entries name it, computed once per view of the domain (a rotation makes a new view). */
export class TokenIds {
  private readonly ids = new WeakMap<{ token: string }, string>();

  of(domain: { token: string }): string {
    let id = this.ids.get(domain);
    if (id === undefined) {
      id = credentialId('token', domain.token);
      this.ids.set(domain, id);
    }
    return id;
  }
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'ERR_INTERNAL';
}
