// The two pool files: `<pool_file>`, a sealed snapshot of the whole pool, and `<pool_file>.hot`, a
// sealed journal of what happened since. A take is committed by appending the served keys to the
// journal (one fdatasync for a whole batch of requests); a rewrite replaces the snapshot and then the
// journal, each atomically, so a crash between the two leaves a new snapshot and an old journal whose
// replay changes nothing.
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DecryptionError, newKdfParams, type DeriveMasterKey, type KdfParams } from '../../src/store/sealed.js';
import { decodeJournal, decodeSnapshot, encodeSnapshot, JournalWriter, readHeader } from '../../src/store/sealed-file.js';
import { writeSecretFile } from '../../src/store/secret.js';
import { decodeJournalRecord, decodeSnapshotContent, encodeJournalRecord, encodeSnapshotContent, type JournalRecord, type SnapshotContent } from './codec.js';

const snapshotMagic = 'QPOOLSN1';
const journalMagic = 'QPOOLJN1';

export interface LoadedFiles {
  snapshot: SnapshotContent;
  journal: JournalRecord[];
  /** Bytes of an append cut short by a crash, ignored. */
  incompleteTailBytes: number;
  /** Whether the files existed, or the pool starts new. */
  existed: boolean;
}

export class PoolFiles {
  private journal: JournalWriter | undefined;

  private constructor(
    readonly path: string,
    private readonly masterKey: Buffer,
    private readonly kdf: KdfParams,
  ) {}

  get journalPath(): string {
    return `${this.path}.hot`;
  }

  /** Bytes in the journal; the pool rewrites both files once it grows past a bound. */
  get journalBytes(): number {
    return this.journal?.size ?? 0;
  }

  /**
   * Reads and opens both files without writing anything: a wrong passphrase or an altered file
   * throws DecryptionError and leaves them as they were.
   */
  static async load(path: string, passphrase: string, deriveMasterKey: DeriveMasterKey): Promise<{ files: PoolFiles; loaded: LoadedFiles }> {
    const snapshotBytes = await readIfPresent(path);
    const journalBytes = await readIfPresent(`${path}.hot`);
    if (snapshotBytes === undefined) {
      if (journalBytes !== undefined) throw new DecryptionError(`${path} is missing while ${path}.hot exists`);
      const kdf = newKdfParams();
      const files = new PoolFiles(path, await deriveMasterKey(passphrase, kdf), kdf);
      return { files, loaded: { snapshot: { servedTotal: 0, lastIngest: undefined, entryCount: 0, entries: [], servedKeys: [] }, journal: [], incompleteTailBytes: 0, existed: false } };
    }
    const { kdf } = readHeader(snapshotMagic, snapshotBytes, path);
    const masterKey = await deriveMasterKey(passphrase, kdf);
    const snapshot = decodeSnapshotContent(decodeSnapshot(snapshotMagic, masterKey, snapshotBytes, path));
    let journal: JournalRecord[] = [];
    let incompleteTailBytes = 0;
    if (journalBytes !== undefined) {
      const header = readHeader(journalMagic, journalBytes, `${path}.hot`);
      if (!header.kdf.salt.equals(kdf.salt)) throw new DecryptionError(`${path}.hot belongs to another pool`);
      const content = decodeJournal(journalMagic, masterKey, journalBytes, `${path}.hot`);
      journal = content.records.map(decodeJournalRecord);
      incompleteTailBytes = content.incompleteTailBytes;
    }
    return { files: new PoolFiles(path, masterKey, kdf), loaded: { snapshot, journal, incompleteTailBytes, existed: true } };
  }

  /** Replaces the snapshot with `content` (read before this first waits) and starts an empty journal. */
  async rewrite(content: SnapshotContent): Promise<void> {
    const snapshot = encodeSnapshot(snapshotMagic, this.masterKey, this.kdf, encodeSnapshotContent(content));
    const previous = this.journal;
    this.journal = undefined;
    closeQuietly(previous);
    // Only a missing folder is made (mode 0700); an existing one is left as its owner set it.
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    await writeSecretFile(this.path, snapshot);
    this.journal = await JournalWriter.create(this.journalPath, journalMagic, this.masterKey, this.kdf);
  }

  /** Appends a record and waits until it is on disk. */
  append(record: JournalRecord): Promise<void> {
    if (this.journal === undefined) return Promise.reject(new Error('the journal is not open; the pool files must be rewritten first'));
    try {
      this.journal.append(encodeJournalRecord(record));
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  close(): void {
    closeQuietly(this.journal);
    this.journal = undefined;
  }
}

function closeQuietly(journal: JournalWriter | undefined): void {
  try {
    journal?.close();
  } catch {
    // A journal on a disk that went away may not close cleanly; it is replaced either way.
  }
}

async function readIfPresent(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
