// The domains on disk: one file per domain, `<data dir>/domains/<name>.json`, mode 0600 in a 0700
// folder, holding the record (with its token) and the material (certificate, chain, key). A change
// to one domain rewrites only that domain's file, so it costs the same with ten domains or ten
// thousand.
//
// One file rather than a folder of record, certificate and key: a file is replaced atomically
// (src/store/atomic.ts), so the record's status and expiry and the certificate, chain and key they
// describe always change together, and a crash cannot pair a new certificate with an old key. It is
// also what makes a restart fast: one read per domain (10,000 reads of 4 KB), where a folder of
// files took three times the system calls. Removing a domain is one unlink, atomic by itself.
import { closeSync, fstatSync, openSync, readdirSync, readSync, rmSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { hostNameProblem } from '../../../src/net/host-names.js';
import { syncDirectory } from '../../../src/store/atomic.js';
import { ensureSecretDirectory, writeSecretFile } from '../../../src/store/secret.js';
import { KeyedSerializer } from '../../../src/store/keyed-serializer.js';
import type { Material } from '../acme/protocol.js';
import { normalizeMaterial } from './material.js';
import { domainRecordSchema, type DomainRecord } from './record.js';

const fileSuffix = '.json';

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

/** The file's JSON: `material` is null until the first certificate. */
interface DomainFile {
  record: unknown;
  material: unknown;
}

/** What the book writes domains through: this folder, or the shared store (../postgres/domain-table.ts). */
export interface DomainWrites {
  /** Writes the record and material together; rejects, writing nothing, when the material is not canonical. */
  write(domain: StoredDomain): Promise<void>;
  /** Deletes the domain with its token and material; a domain not stored is no error. */
  remove(name: string): Promise<void>;
  /** Resolves when every write started so far has finished. */
  flush(): Promise<void>;
}

export class DomainStore implements DomainWrites {
  /** Writes to one domain run in call order, so an older write never lands after a newer one. */
  private readonly writes = new KeyedSerializer();

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
    // Every certificate of one CA carries the same chain: keep one copy of each chain text.
    const chains = new Map<string, string>();
    const reader = new FileReader();
    for (const file of readdirSync(this.domainsDir)) {
      const path = join(this.domainsDir, file);
      // writeFileAtomic's temporary files (`.<name>.<hex>.tmp`), left by a crash mid-write.
      if (file.startsWith('.') && file.endsWith('.tmp')) {
        rmSync(path, { force: true });
        continue;
      }
      if (!file.endsWith(fileSuffix)) continue;
      const domain = readDomainFile(reader, path, file.slice(0, -fileSuffix.length), problems);
      if (domain === undefined) continue;
      if (domain.material !== undefined) {
        const chain = chains.get(domain.material.chain_pem) ?? domain.material.chain_pem;
        chains.set(chain, chain);
        domain.material.chain_pem = chain;
      }
      domains.set(domain.record.name, domain);
    }
    return { domains, problems };
  }

  /**
   * Writes a domain: its record and material together, in one atomic replacement. Material is checked
   * and stored in canonical PEM form; the promise rejects (and nothing is written) when it is not
   * one certificate, a chain of certificates and one private key.
   */
  async write(domain: StoredDomain): Promise<void> {
    const { name } = domain.record;
    const path = this.domainPath(name);
    const content: DomainFile = {
      record: domain.record,
      material: domain.material === undefined ? null : normalizeMaterial(domain.material, domain.record.own_key),
    };
    // Compact: a tenth less to read at start than indented JSON; `jq . <file>` shows it indented.
    await this.writes.run(name, () => writeSecretFile(path, `${JSON.stringify(content)}\n`));
  }

  /** Deletes a domain's file; its token and material are gone with it. */
  remove(name: string): Promise<void> {
    const path = this.domainPath(name);
    return this.writes.run(name, async () => {
      try {
        await unlink(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      // Without this, a power failure could bring the file back.
      await syncDirectory(this.domainsDir);
    });
  }

  /** Resolves when every write started so far has finished (for shutdown). */
  async flush(): Promise<void> {
    await this.writes.settled();
  }

  private domainPath(name: string): string {
    // Names reach here validated (parseDomainName); this keeps any other string out of the path.
    if (hostNameProblem(name) !== undefined) throw new Error(`not a domain name: ${JSON.stringify(name)}`);
    return join(this.domainsDir, `${name}${fileSuffix}`);
  }
}

/**
 * Reads whole files as text through one buffer. `readFileSync` allocates a buffer per file outside
 * the JavaScript heap, freed only when a collection finds it dead: 10,000 of them left the thread's
 * malloc arena at tens of MB that it kept for good.
 */
class FileReader {
  private buffer = Buffer.allocUnsafeSlow(64 * 1024);

  read(path: string): string {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      if (size > this.buffer.length) this.buffer = Buffer.allocUnsafeSlow(size);
      let length = 0;
      while (length < size) {
        const read = readSync(fd, this.buffer, length, size - length, null);
        if (read === 0) break;
        length += read;
      }
      return this.buffer.toString('utf8', 0, length);
    } finally {
      closeSync(fd);
    }
  }
}

function readDomainFile(reader: FileReader, path: string, expectedName: string, problems: string[]): StoredDomain | undefined {
  let content: Partial<DomainFile>;
  try {
    content = JSON.parse(reader.read(path)) as Partial<DomainFile>;
  } catch (error) {
    problems.push(`${path} cannot be read: ${(error as Error).message}; skipped`);
    return undefined;
  }
  const result = domainRecordSchema.safeParse(content.record);
  if (!result.success) {
    const issue = result.error.issues[0];
    problems.push(`${path} holds no valid domain record (${['record', ...(issue?.path ?? [])].join('.')}: ${issue?.message ?? ''}); skipped`);
    return undefined;
  }
  if (result.data.name !== expectedName) {
    problems.push(`${path} holds the domain ${result.data.name}, not ${expectedName}; skipped`);
    return undefined;
  }
  if (content.material === null || content.material === undefined) return { record: result.data, material: undefined };
  const material = content.material as Partial<Record<keyof Material, unknown>>;
  if (typeof material.cert_pem !== 'string' || typeof material.chain_pem !== 'string' || typeof material.key_pem !== 'string') {
    problems.push(`${path} holds material without cert_pem, chain_pem and key_pem; the domain is loaded without material`);
    return { record: result.data, material: undefined };
  }
  return { record: result.data, material: { cert_pem: material.cert_pem, chain_pem: material.chain_pem, key_pem: material.key_pem } };
}
