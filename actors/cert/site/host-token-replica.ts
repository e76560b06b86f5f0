// The front's copy of the host tokens (../hosts/host-tokens.ts), kept from the replica topic: an
// agent's token that is not its domain's is looked up here by its SHA-256. The lookup is by a digest
// an attacker cannot steer without the token, and the match is confirmed in constant time, so the
// time taken says nothing of the tokens held, nor whether the domain asked for has any.
import { timingSafeEqual } from 'node:crypto';
import { secretDigest } from '../../../src/crypto/constant-time.js';
import { viewOf, type HostTokenRecord, type HostTokenView } from '../hosts/host-tokens.js';

interface Held {
  name: string;
  record: HostTokenRecord;
  digest: Buffer;
}

export class HostTokenReplica {
  /** Domain name -> its host tokens, in the order issued. */
  private readonly byDomain = new Map<string, HostTokenRecord[]>();
  /** Hex SHA-256 of a token -> the token and its domain. */
  private readonly byDigest = new Map<string, Held>();

  /** The domain's whole list, as the domains actor published it. */
  apply(name: string, tokens: readonly HostTokenRecord[]): void {
    this.forget(name);
    if (tokens.length === 0) return;
    this.byDomain.set(name, [...tokens]);
    for (const record of tokens) this.byDigest.set(record.sha256, { name, record, digest: Buffer.from(record.sha256, 'hex') });
  }

  forget(name: string): void {
    for (const record of this.byDomain.get(name) ?? []) this.byDigest.delete(record.sha256);
    this.byDomain.delete(name);
  }

  /** The host token `token` is, when it was issued under the domain `name` (a full name); else undefined. */
  match(name: string, token: string): HostTokenRecord | undefined {
    const digest = secretDigest(token);
    const held = this.byDigest.get(digest.toString('hex'));
    if (held === undefined || !timingSafeEqual(held.digest, digest)) return undefined;
    return held.name === name ? held.record : undefined;
  }

  /** The domain's host tokens as the admin API lists them: no secret, no digest. */
  of(name: string): HostTokenView[] {
    return (this.byDomain.get(name) ?? []).map(viewOf);
  }
}
