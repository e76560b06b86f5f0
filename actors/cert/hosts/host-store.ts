// The hosts of each domain on disk: `<data dir>/hosts/<name>.json`, mode 0600 in a 0700 folder, one
// file per domain replaced atomically at each report, so a report costs the same with ten domains or
// ten thousand and a crash leaves the file before or after it, never between.
import { readdir, readFile, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { hostNameProblem } from '../../../src/net/host-names.js';
import { syncDirectory } from '../../../src/store/atomic.js';
import { ensureSecretDirectory, writeSecretFile } from '../../../src/store/secret.js';
import { KeyedSerializer } from '../../../src/store/keyed-serializer.js';
import type { HostRecord } from './deployment.js';

const isoInstant = z.iso.datetime();
const hostRecordSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  address: z.string(),
  agent: z.enum(['fetch', 'proxy']),
  agent_version: z.string(),
  sha256: z.string(),
  not_after: isoInstant,
  served_since: isoInstant,
  reload: z.object({ ok: z.boolean(), exit_code: z.number().int().nullable(), output: z.array(z.string()) }).nullable(),
  last_report_at: isoInstant,
  next_check_at: isoInstant.nullable(),
  port: z.number().int().min(1).max(65_535).nullable().default(null),
  server: z.string().nullable().default(null),
  probe: z
    .object({ at: isoInstant, address: z.string(), sha256: z.string().nullable(), not_after: isoInstant.nullable(), error: z.string().nullable() })
    .nullable()
    .default(null),
  host_token: z.string().nullable().default(null),
}) satisfies z.ZodType<HostRecord>;
const hostsFileSchema = z.object({ hosts: z.array(hostRecordSchema) });

const fileSuffix = '.json';

export interface LoadedHosts {
  /** Domain name -> its hosts by id. */
  hosts: Map<string, Map<string, HostRecord>>;
  /** Files that could not be read (skipped, left in place), one line each for the log. */
  problems: string[];
}

export class HostStore {
  /** Writes to one domain's file run in call order, so an older list never lands after a newer one. */
  private readonly writes = new KeyedSerializer();

  private constructor(readonly hostsDir: string) {}

  /** Opens (creating) `<dataDir>/hosts` and loads every domain's hosts. */
  static async open(dataDir: string): Promise<{ store: HostStore; loaded: LoadedHosts }> {
    const hostsDir = join(dataDir, 'hosts');
    await ensureSecretDirectory(dataDir);
    await ensureSecretDirectory(hostsDir);
    const store = new HostStore(hostsDir);
    return { store, loaded: await store.loadAll() };
  }

  private async loadAll(): Promise<LoadedHosts> {
    const hosts = new Map<string, Map<string, HostRecord>>();
    const problems: string[] = [];
    for (const file of await readdir(this.hostsDir)) {
      const path = join(this.hostsDir, file);
      // writeFileAtomic's temporary files, left by a crash mid-write.
      if (file.startsWith('.') && file.endsWith('.tmp')) {
        await rm(path, { force: true });
        continue;
      }
      if (!file.endsWith(fileSuffix)) continue;
      const name = file.slice(0, -fileSuffix.length);
      let parsed: unknown;
      try {
        parsed = JSON.parse(await readFile(path, 'utf8'));
      } catch (error) {
        problems.push(`${path} cannot be read: ${(error as Error).message}; skipped`);
        continue;
      }
      const result = hostsFileSchema.safeParse(parsed);
      if (!result.success) {
        const issue = result.error.issues[0];
        problems.push(`${path} holds no valid host list (${(issue?.path ?? []).join('.')}: ${issue?.message ?? ''}); skipped`);
        continue;
      }
      hosts.set(name, new Map(result.data.hosts.map((host) => [host.id, host])));
    }
    return { hosts, problems };
  }

  write(name: string, hosts: readonly HostRecord[]): Promise<void> {
    if (hosts.length === 0) return this.remove(name);
    const path = this.pathOf(name);
    return this.writes.run(name, () => writeSecretFile(path, `${JSON.stringify({ hosts })}\n`));
  }

  remove(name: string): Promise<void> {
    const path = this.pathOf(name);
    return this.writes.run(name, async () => {
      try {
        await unlink(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      await syncDirectory(this.hostsDir);
    });
  }

  /** Resolves when every write started so far has finished (for shutdown). */
  async flush(): Promise<void> {
    await this.writes.settled();
  }

  private pathOf(name: string): string {
    // Names reach here from the domains actor's book; this keeps any other string out of the path.
    if (hostNameProblem(name) !== undefined) throw new Error(`not a domain name: ${JSON.stringify(name)}`);
    return join(this.hostsDir, `${name}${fileSuffix}`);
  }
}
