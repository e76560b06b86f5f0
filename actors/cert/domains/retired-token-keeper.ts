// Keeps the list of retired tokens (retired-tokens.ts): adds a domain's old token when it is rotated or
// the domain removed, writes the file, and publishes each domain's entries to the fronts, which tell
// an agent fetching with one that its token was retired.
import type { Logger } from '../../../src/log/record.js';
import type { ReplicaMessage } from './protocol.js';
import type { Documents } from '../store/documents.js';
import { GroupCommit } from '../../../src/store/group-commit.js';
import { retiredDigest, withRetiredDigest, writeRetiredTokens, type RetiredToken } from './retired-tokens.js';

export type PublishRetired = (message: Extract<ReplicaMessage, { type: 'retired' }>, options: { key: string; retain: boolean }) => void;

export class RetiredTokenKeeper {
  /** One write of the list as it is for every retirement made before it starts; never two at once. */
  private readonly writes = new GroupCommit();

  constructor(
    private tokens: RetiredToken[],
    private readonly deps: { documents: Documents; publish: PublishRetired; log: Logger; now: () => number },
  ) {}

  /** Publishes the entries of every domain that has any (at start, before the book is `loaded`). */
  publishAll(): void {
    for (const name of new Set(this.tokens.map((entry) => entry.name))) this.publish(name);
  }

  /** Remembers `token` of `name` as retired; a failed write is logged, the refusal wording being all it serves. */
  retire(name: string, token: string, reason: RetiredToken['reason']): Promise<void> {
    return this.retireDigest({ name, sha256: retiredDigest(token), reason });
  }

  /** Remembers a token known by its digest only (a host token) as retired. */
  retireDigest(retiring: Omit<RetiredToken, 'retired_at'>): Promise<void> {
    const { name } = retiring;
    this.tokens = withRetiredDigest(this.tokens, retiring, this.deps.now());
    this.publish(name);
    return this.writes
      .schedule(() => writeRetiredTokens(this.deps.documents, this.tokens))
      .catch((error: unknown) => this.deps.log.error(`the retired tokens could not be written: ${error instanceof Error ? error.message : String(error)}`));
  }

  /** Resolves when every write started so far has finished (for shutdown). */
  flush(): Promise<void> {
    return this.writes.settled();
  }

  private publish(name: string): void {
    // Domain names hold no ':', so this key never meets a domain's.
    this.deps.publish({ type: 'retired', name, tokens: this.tokens.filter((entry) => entry.name === name) }, { key: `retired:${name}`, retain: true });
  }
}
