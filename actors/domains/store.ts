// The domains on disk: one folder per domain under `<data dir>/domains/`, holding domain.json (the
// record, with its token) and material.pem (certificate, chain, key), each written atomically with
// mode 0600 in a 0700 folder. A change to one domain writes only that domain's files, so a change
// costs the same with ten domains or ten thousand.
//
// Crash safety: every file is replaced atomically (src/store/atomic.ts); a new domain's folder is
// made durable before its record is acknowledged; a removed domain's folder is first renamed to a
// tombstone (`.removed-...`), so a crash during the deletion never brings back half a domain. Opening
// the store deletes tombstones, leftover temporary files and folders a crash left without a record.
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm } from 'node:fs/promises';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { syncDirectory } from '../../src/store/atomic.js';
import { ensureSecretDirectory, secretDirMode, writeSecretFile } from '../../src/store/secret.js';
import { formatMaterial, normalizeMaterial, parseMaterial, type Material } from './material.js';
import { domainRecordSchema, type DomainRecord } from './record.js';

export const recordFileName = 'domain.json';
export const materialFileName = 'material.pem';
const tombstonePrefix = '.removed-';

export interface StoredDomain {
  record: DomainRecord;
  /** Undefined until the first certificate. */
  material: Material | undefined;
}

export interface LoadedDomains {
  domains: Map<string, StoredDomain>;
  /** Files that could not be read as a domain (skipped, left in place), one line each for the log. */
  problems: string[];
}

export class DomainStore {
  /** Writes to one domain run in call order, so an older write never lands after a newer one. */
  private readonly queues = new Map<string, Promise<void>>();

  private constructor(readonly domainsDir: string) {}

  /** Opens (creating) `<dataDir>/domains` and loads every domain in it. */
  static async open(dataDir: string): Promise<{ store: DomainStore; loaded: LoadedDomains }> {
    const domainsDir = join(dataDir, 'domains');
    await ensureSecretDirectory(dataDir);
    await ensureSecretDirectory(domainsDir);
    const store = new DomainStore(domainsDir);
    return { store, loaded: store.loadAll() };
  }

  /**
   * Reads every domain. Synchronous on purpose: it runs once before the actor is ready, when there is
   * nothing else to do, and 10,000 small synchronous reads take a fraction of the time of as many
   * promise round trips through the thread pool.
   */
  private loadAll(): LoadedDomains {
    const domains = new Map<string, StoredDomain>();
    const problems: string[] = [];
    // Every issued certificate of one CA shares one chain: keep a single copy of each.
    const chains = new Map<string, string>();
    for (const entry of readdirSync(this.domainsDir, { withFileTypes: true })) {
      const dir = join(this.domainsDir, entry.name);
      if (entry.name.startsWith(tombstonePrefix)) {
        rmSync(dir, { recursive: true, force: true });
        continue;
      }
      if (!entry.isDirectory()) continue;
      const files = readdirSync(dir);
      for (const file of files) if (isTemporary(file)) rmSync(join(dir, file), { force: true });
      if (!files.includes(recordFileName)) {
        // A crash between making the folder and writing the record: the add was never acknowledged.
        if (files.every(isTemporary)) rmSync(dir, { recursive: true, force: true });
        else problems.push(`${dir} has no ${recordFileName}; skipped`);
        continue;
      }
      const record = readRecord(join(dir, recordFileName), entry.name, problems);
      if (record === undefined) continue;
      let material: Material | undefined;
      if (files.includes(materialFileName)) {
        const path = join(dir, materialFileName);
        try {
          material = parseMaterial(readFileSync(path, 'utf8'));
          const chain = chains.get(material.chain_pem) ?? material.chain_pem;
          chains.set(chain, chain);
          material.chain_pem = chain;
        } catch (error) {
          problems.push(`${path} ${(error as Error).message}; the domain is loaded without material`);
        }
      }
      domains.set(record.name, { record, material });
    }
    return { domains, problems };
  }

  /** Writes a domain's record, creating its folder the first time. */
  writeRecord(record: DomainRecord): Promise<void> {
    return this.serialize(record.name, async () => {
      const dir = this.domainDir(record.name);
      const created = await mkdir(dir, { mode: secretDirMode }).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'EEXIST') return false;
          throw error;
        },
      );
      await writeSecretFile(join(dir, recordFileName), `${JSON.stringify(record, null, 2)}\n`);
      // The new folder's own entry must be on disk too before the add is acknowledged.
      if (created) await syncDirectory(this.domainsDir);
    });
  }

  /** Replaces a domain's material (certificate, chain and key together); the record must exist. */
  async writeMaterial(name: string, material: Material): Promise<void> {
    const text = formatMaterial(normalizeMaterial(material));
    await this.serialize(name, () => writeSecretFile(join(this.domainDir(name), materialFileName), text));
  }

  /** Deletes a domain: its folder becomes a tombstone in one rename, then goes. */
  remove(name: string): Promise<void> {
    return this.serialize(name, async () => {
      const tombstone = join(this.domainsDir, `${tombstonePrefix}${name}-${randomBytes(6).toString('hex')}`);
      try {
        await rename(this.domainDir(name), tombstone);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      await syncDirectory(this.domainsDir);
      await rm(tombstone, { recursive: true, force: true });
    });
  }

  /** Resolves when every write started so far has finished (for shutdown). */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.queues.values()]);
  }

  private domainDir(name: string): string {
    // Names reach here validated (parseDomainName): letters, digits, hyphens and dots, never `..`.
    if (!/^[a-z0-9][a-z0-9.-]*$/.test(name) || name.includes('..')) throw new Error(`not a domain name: ${JSON.stringify(name)}`);
    return join(this.domainsDir, name);
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

function readRecord(path: string, dirName: string, problems: string[]): DomainRecord | undefined {
  let input: unknown;
  try {
    input = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    problems.push(`${path} cannot be read: ${(error as Error).message}; skipped`);
    return undefined;
  }
  const result = domainRecordSchema.safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0];
    problems.push(`${path} is not a domain record (${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}); skipped`);
    return undefined;
  }
  if (result.data.name !== dirName) {
    problems.push(`${path} holds the domain ${result.data.name}, not ${dirName}; skipped`);
    return undefined;
  }
  return result.data;
}

/** writeFileAtomic's temporary files: `.<name>.<hex>.tmp`. */
function isTemporary(file: string): boolean {
  return file.startsWith('.') && file.endsWith('.tmp');
}
