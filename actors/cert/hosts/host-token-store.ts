// The host tokens of each domain on disk: `<data dir>/host-tokens/<name>.json`, mode 0600 in a 0700
// folder, one file per domain replaced atomically at each change. A file holds each token's SHA-256,
// never the token: a copy of the data folder lets no one fetch with it.
import { readdir, readFile, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { hostNameProblem } from '../../../src/net/host-names.js';
import { syncDirectory } from '../../../src/store/atomic.js';
import { ensureSecretDirectory, writeSecretFile } from '../../../src/store/secret.js';
import { hostTokenIdPattern, type HostTokenRecord } from './host-tokens.js';

const isoInstant = z.iso.datetime();
const recordSchema = z.object({
  id: z.string().regex(hostTokenIdPattern),
  host: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  created_at: isoInstant,
  last_used_at: isoInstant.nullable(),
}) satisfies z.ZodType<HostTokenRecord>;
const fileSchema = z.object({ tokens: z.array(recordSchema) });

const fileSuffix = '.json';

export interface LoadedHostTokens {
  /** Domain name -> its host tokens by id. */
  tokens: Map<string, Map<string, HostTokenRecord>>;
  /** Files that could not be read (skipped, left in place), one line each for the log. */
  problems: string[];
}

export class HostTokenStore {
  /** Writes to one domain's file run in call order, so an older list never lands after a newer one. */
  private readonly queues = new Map<string, Promise<void>>();

  private constructor(readonly dir: string) {}

  /** Opens (creating) `<dataDir>/host-tokens` and loads every domain's host tokens. */
  static async open(dataDir: string): Promise<{ store: HostTokenStore; loaded: LoadedHostTokens }> {
    const dir = join(dataDir, 'host-tokens');
    await ensureSecretDirectory(dataDir);
    await ensureSecretDirectory(dir);
    const store = new HostTokenStore(dir);
    return { store, loaded: await store.loadAll() };
  }

  private async loadAll(): Promise<LoadedHostTokens> {
    const tokens = new Map<string, Map<string, HostTokenRecord>>();
    const problems: string[] = [];
    for (const file of await readdir(this.dir)) {
      const path = join(this.dir, file);
      // writeFileAtomic's temporary files, left by a crash mid-write.
      if (file.startsWith('.') && file.endsWith('.tmp')) {
        await rm(path, { force: true });
        continue;
      }
      if (!file.endsWith(fileSuffix)) continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(await readFile(path, 'utf8'));
      } catch (error) {
        problems.push(`${path} cannot be read: ${(error as Error).message}; skipped`);
        continue;
      }
      const result = fileSchema.safeParse(parsed);
      if (!result.success) {
        const issue = result.error.issues[0];
        problems.push(`${path} holds no valid list of host tokens (${(issue?.path ?? []).join('.')}: ${issue?.message ?? ''}); skipped`);
        continue;
      }
      tokens.set(file.slice(0, -fileSuffix.length), new Map(result.data.tokens.map((token) => [token.id, token])));
    }
    return { tokens, problems };
  }

  /** Writes the domain's tokens; none removes its file. */
  write(name: string, tokens: readonly HostTokenRecord[]): Promise<void> {
    if (tokens.length === 0) return this.remove(name);
    const path = this.pathOf(name);
    return this.serialize(name, () => writeSecretFile(path, `${JSON.stringify({ tokens })}\n`));
  }

  remove(name: string): Promise<void> {
    const path = this.pathOf(name);
    return this.serialize(name, async () => {
      try {
        await unlink(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      // Without this, a power failure could bring a revoked token back.
      await syncDirectory(this.dir);
    });
  }

  /** Resolves when every write started so far has finished (for shutdown). */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.queues.values()]);
  }

  private pathOf(name: string): string {
    // Names reach here from the domains actor's book; this keeps any other string out of the path.
    if (hostNameProblem(name) !== undefined) throw new Error(`not a domain name: ${JSON.stringify(name)}`);
    return join(this.dir, `${name}${fileSuffix}`);
  }

  private serialize(name: string, job: () => Promise<void>): Promise<void> {
    const next = (this.queues.get(name) ?? Promise.resolve()).then(job, job);
    this.queues.set(name, next);
    const forget = () => {
      if (this.queues.get(name) === next) this.queues.delete(name);
    };
    next.then(forget, forget);
    return next;
  }
}
