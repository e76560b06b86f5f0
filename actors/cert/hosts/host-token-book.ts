// The host tokens of every domain, in the domains actor (their one owner): issued and revoked by the
// admin, written to the domain's file, then published to the fronts, which check an agent's token
// against them (../site/host-token-replica.ts). A revoked token, and the tokens of a removed domain,
// are remembered as retired (../domains/retired-tokens.ts), so the agent still using one is told why.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../../src/actor/clock.js';
import { secretDigest } from '../../../src/crypto/constant-time.js';
import { OutpostError } from '../../../src/errors.js';
import type { Logger } from '../../../src/log/record.js';
import type { DomainChange, ReplicaMessage, RetiredToken } from '../domains/protocol.js';
import { newHostToken } from '../domains/token.js';
import type { HostTokenStore } from './host-token-store.js';
import {
  hostTokenHostProblem,
  maxHostTokensPerDomain,
  viewOf,
  type HostTokenRecord,
  type HostTokenUse,
  type HostTokenView,
  type IssuedHostToken,
} from './host-tokens.js';

export type HostTokensMessage = Extract<ReplicaMessage, { type: 'host-tokens' }>;

export interface HostTokenBookDeps {
  store: HostTokenStore;
  clock: Clock;
  log: Logger;
  publish: (message: HostTokensMessage, options: { key: string; retain: boolean }) => void;
  /** Remembers a token as retired (../domains/retired-token-keeper.ts). */
  retire: (retiring: Omit<RetiredToken, 'retired_at'>) => Promise<void>;
}

/** A domain's replica key for its host tokens: domain names hold no ':'. */
const keyOf = (name: string) => `host-tokens:${name}`;
const minuteOf = (iso: string | null) => iso?.slice(0, 16);

export class HostTokenBook {
  /** The domains of the book: a token is issued under one of them only. */
  private readonly domains = new Set<string>();

  constructor(
    private readonly tokens: Map<string, Map<string, HostTokenRecord>>,
    private readonly deps: HostTokenBookDeps,
  ) {}

  /** Follows the domain book: a removed domain's host tokens go with it, retired. */
  domainChanged(change: DomainChange): void {
    if (change.type === 'domain') {
      this.domains.add(change.domain.name);
      return;
    }
    const { name } = change;
    this.domains.delete(name);
    const tokens = this.tokens.get(name);
    if (tokens === undefined) return;
    this.tokens.delete(name);
    this.deps.publish({ type: 'host-tokens', name, tokens: [] }, { key: keyOf(name), retain: false });
    // Retired before the domain's own token (the book retires it after publishing the removal), which is kept last.
    for (const token of tokens.values()) void this.deps.retire({ name, sha256: token.sha256, reason: 'removed', host: token.host });
    this.deps.store.remove(name).catch((error: unknown) => this.deps.log.warn(`the host tokens file of ${name} could not be removed: ${String(error)}`));
  }

  /** After the domain book published every domain: tokens of a domain it does not hold are dropped, the others published. */
  async settle(): Promise<void> {
    for (const name of [...this.tokens.keys()]) {
      if (this.domains.has(name)) {
        this.publish(name);
        continue;
      }
      this.tokens.delete(name);
      await this.deps.store.remove(name);
      this.deps.log.info(`dropped the host tokens of ${name}, which is no domain of certhub's`);
    }
  }

  /** A new token for `host` under the domain `name` (a full name): the answer is the only place the token is ever shown. */
  async issue(name: string, host: string): Promise<IssuedHostToken> {
    if (!this.domains.has(name)) throw new OutpostError('ERR_NOT_FOUND', `no domain ${name}`);
    const problem = hostTokenHostProblem(host);
    if (problem !== undefined) throw new OutpostError('ERR_BAD_REQUEST', problem);
    const tokens = this.tokens.get(name) ?? new Map<string, HostTokenRecord>();
    const same = [...tokens.values()].find((token) => token.host === host);
    if (same !== undefined) throw new OutpostError('ERR_CONFLICT', `${name} has a host token for ${host} already (id ${same.id}): revoke it first`);
    if (tokens.size >= maxHostTokensPerDomain)
      throw new OutpostError('ERR_CONFLICT', `${name} has ${tokens.size} host tokens, the most it keeps: revoke one no longer used`);
    const token = newHostToken();
    let id = randomBytes(8).toString('hex');
    while (tokens.has(id)) id = randomBytes(8).toString('hex');
    const record: HostTokenRecord = {
      id,
      host,
      sha256: secretDigest(token).toString('hex'),
      created_at: new Date(this.deps.clock.now()).toISOString(),
      last_used_at: null,
    };
    tokens.set(id, record);
    this.tokens.set(name, tokens);
    await this.deps.store.write(name, [...tokens.values()]);
    this.publish(name);
    this.deps.log.info(`${name}: issued host token ${id} for ${host}`);
    return { domain: name, ...viewOf(record), token };
  }

  /** Revokes a host token: the host's next request is refused (401, saying it was revoked); the others' tokens work on. */
  async revoke(name: string, id: string): Promise<HostTokenView> {
    const tokens = this.tokens.get(name);
    const record = tokens?.get(id);
    if (tokens === undefined || record === undefined) throw new OutpostError('ERR_NOT_FOUND', `${name} has no host token ${id}`);
    tokens.delete(id);
    if (tokens.size === 0) this.tokens.delete(name);
    // Dead on the replica first: nothing slower stands between the revocation and the refusal.
    this.publish(name);
    await this.deps.store.write(name, [...tokens.values()]);
    await this.deps.retire({ name, sha256: record.sha256, reason: 'revoked', host: record.host });
    this.deps.log.info(`${name}: revoked host token ${id} of ${record.host}`);
    return viewOf(record);
  }

  /** Requests made with host tokens: a token's last use is kept to the minute, so it is written at most once a minute. */
  recordUses(uses: readonly HostTokenUse[]): void {
    const changed = new Set<string>();
    for (const { name, id, at } of uses) {
      const record = this.tokens.get(name)?.get(id);
      if (record === undefined) continue;
      const iso = new Date(at).toISOString();
      if (record.last_used_at !== null && (minuteOf(iso) ?? '') <= (minuteOf(record.last_used_at) ?? '')) continue;
      record.last_used_at = iso;
      changed.add(name);
    }
    for (const name of changed) {
      this.publish(name);
      this.deps.store
        .write(name, [...(this.tokens.get(name)?.values() ?? [])])
        .catch((error: unknown) => this.deps.log.warn(`the host tokens of ${name} could not be written: ${String(error)}`));
    }
  }

  stop(): Promise<void> {
    return this.deps.store.flush();
  }

  private publish(name: string): void {
    const tokens = [...(this.tokens.get(name)?.values() ?? [])].map((token) => ({ ...token }));
    this.deps.publish({ type: 'host-tokens', name, tokens }, { key: keyOf(name), retain: tokens.length > 0 });
  }
}
