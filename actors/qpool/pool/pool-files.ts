// The pool files: `<pool_file>`, a sealed snapshot of the whole pool, and `<pool_file>.hot`, a sealed
// journal of what happened since. A take is committed by appending the served keys to the journal
// (one fdatasync for a whole batch of requests).
//
// A journal grown long is folded into a new snapshot without stopping commits (`compact`): the
// snapshot is sealed in memory at once, appends move to a new journal `<pool_file>.hot.next`, the
// snapshot is written in the background, and the new journal is then renamed over the old one.
// Every snapshot names the journal that continues it (by that journal's file salt), so whatever
// instant a crash picks, loading replays exactly what the snapshot lacks:
//   the snapshot names .hot         replay .hot, then .hot.next if present (a compaction under way)
//   the snapshot names .hot.next    replay .hot.next only (the crash came before the rename)
//   it names neither                replay nothing (the crash came before its journal was made)
// Every journal present is decrypted either way, so an altered one is refused, never skipped.
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { syncDirectory } from '../../../src/store/atomic.js';
import { DecryptionError, newFileSalt, newKdfParams, type DeriveMasterKey, type KdfParams } from '../sealed/sealed.js';
import { decodeJournal, decodeSnapshot, encodeSnapshot, JournalWriter, readHeader } from '../sealed/sealed-file.js';
import { writeSecretFile } from '../../../src/store/secret.js';
import { decodeJournalRecord, decodeSnapshotContent, encodeJournalRecord, encodeSnapshotContent, type JournalRecord, type SnapshotContent } from './codec.js';

const snapshotMagic = 'QPOOLSN1';
/** A journal whose head counts its records (../sealed/journal-count.ts). */
const journalMagic = 'QPOOLJN2';
/** The journals of qpool 0.1.0-beta.1, without that count: still read, never written. */
const uncountedJournalMagic = 'QPOOLJN1';

export interface LoadedFiles {
  snapshot: SnapshotContent;
  /** The records the snapshot lacks, in order. */
  journal: JournalRecord[];
  /** Bytes of an append cut short by a crash, ignored. */
  incompleteTailBytes: number;
  /** Whether the files existed, or the pool starts new. */
  existed: boolean;
}

/** Every file of a pool: what to delete to start over. */
export function poolFilePaths(path: string): { snapshot: string; journal: string; nextJournal: string } {
  return { snapshot: path, journal: `${path}.hot`, nextJournal: `${path}.hot.next` };
}

export class PoolFiles {
  private journal: JournalWriter | undefined;
  /** The background part of a compaction, while it runs. */
  private compacting: Promise<void> | undefined;

  private constructor(
    readonly path: string,
    private readonly masterKey: Buffer,
    private readonly kdf: KdfParams,
  ) {}

  private get paths() {
    return poolFilePaths(this.path);
  }

  /** Bytes in the journal being appended to; the pool compacts once it grows past a bound. */
  get journalBytes(): number {
    return this.journal?.size ?? 0;
  }

  /**
   * Reads and opens every file without writing anything: a wrong passphrase or an altered file
   * throws DecryptionError and leaves them as they were.
   */
  static async load(path: string, passphrase: string, deriveMasterKey: DeriveMasterKey): Promise<{ files: PoolFiles; loaded: LoadedFiles }> {
    const paths = poolFilePaths(path);
    const snapshotBytes = await readIfPresent(paths.snapshot);
    const journals = (await Promise.all([paths.journal, paths.nextJournal].map(async (file) => ({ file, bytes: await readIfPresent(file) })))).filter(
      (journal): journal is { file: string; bytes: Buffer } => journal.bytes !== undefined,
    );
    if (snapshotBytes === undefined) {
      if (journals.length > 0) throw new DecryptionError(`${path} is missing while ${journals[0]?.file ?? ''} exists`);
      const kdf = newKdfParams();
      const files = new PoolFiles(path, await deriveMasterKey(passphrase, kdf), kdf);
      return {
        files,
        loaded: {
          snapshot: { servedTotal: 0, lastIngest: undefined, entryCount: 0, entries: [], servedKeys: [] },
          journal: [],
          incompleteTailBytes: 0,
          existed: false,
        },
      };
    }
    const { kdf } = readHeader(snapshotMagic, snapshotBytes, path);
    const masterKey = await deriveMasterKey(passphrase, kdf);
    const { content, journalId } = decodeSnapshotContent(decodeSnapshot(snapshotMagic, masterKey, snapshotBytes, path));
    const opened = journals.map(({ file, bytes }) => {
      const magic = bytes.toString('latin1', 0, 8) === uncountedJournalMagic ? uncountedJournalMagic : journalMagic;
      const header = readHeader(magic, bytes, file);
      // The journal's own derivation fields are not sealed: each must be the snapshot's, or a changed byte would go unnoticed.
      if (!header.kdf.salt.equals(kdf.salt) || header.kdf.iterations !== kdf.iterations) throw new DecryptionError(`${file} belongs to another pool`);
      return { id: header.fileSalt, ...decodeJournal(magic, masterKey, bytes, file, magic === journalMagic) };
    });
    // A version 1 snapshot names no journal: the single .hot it was written with follows it.
    const first = journalId === undefined ? 0 : opened.findIndex((journal) => journal.id.equals(journalId));
    const replayed = first === -1 ? [] : opened.slice(first);
    const loaded: LoadedFiles = {
      snapshot: content,
      journal: replayed.flatMap((journal) => journal.records.map(decodeJournalRecord)),
      incompleteTailBytes: replayed.reduce((sum, journal) => sum + journal.incompleteTailBytes, 0),
      existed: true,
    };
    return { files: new PoolFiles(path, masterKey, kdf), loaded };
  }

  /**
   * Replaces the snapshot with `content` (read before this first waits) and starts an empty journal.
   * Commits wait for it: it is how the pool starts, and how it recovers after a failed write.
   */
  async rewrite(content: SnapshotContent): Promise<void> {
    const journalId = newFileSalt();
    const snapshot = encodeSnapshot(snapshotMagic, this.masterKey, this.kdf, encodeSnapshotContent(content, journalId));
    await this.compacting?.catch(() => {});
    const previous = this.journal;
    this.journal = undefined;
    closeQuietly(previous);
    // Only a missing folder is made (mode 0700); an existing one is left as its owner set it.
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    await writeSecretFile(this.path, snapshot);
    // The snapshot now names a journal that does not exist yet: until it does, nothing is replayed.
    await rm(this.paths.nextJournal, { force: true });
    this.journal = await JournalWriter.create(this.paths.journal, journalMagic, this.masterKey, this.kdf, journalId);
  }

  /**
   * Folds the journal into a new snapshot without holding commits for the disk: `content` is sealed
   * now, and appends go to a new journal once this resolves. Writing the snapshot and renaming the
   * new journal over the old continue in the background, in `written`.
   */
  async compact(content: SnapshotContent): Promise<{ written: Promise<void> }> {
    if (this.journal === undefined || this.compacting !== undefined) throw new Error('a compaction needs an open journal and none under way');
    const { journal: journalPath, nextJournal } = this.paths;
    const journalId = newFileSalt();
    const snapshot = encodeSnapshot(snapshotMagic, this.masterKey, this.kdf, encodeSnapshotContent(content, journalId));
    const next = await JournalWriter.create(nextJournal, journalMagic, this.masterKey, this.kdf, journalId);
    closeQuietly(this.journal);
    this.journal = next;
    const written = (async () => {
      await writeSecretFile(this.path, snapshot);
      await rename(nextJournal, journalPath);
      await syncDirectory(dirname(journalPath));
    })();
    this.compacting = written.finally(() => {
      this.compacting = undefined;
    });
    return { written };
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

  /** Closes the journal once a compaction under way has finished, its record count on disk. */
  async close(): Promise<void> {
    await this.compacting?.catch(() => {});
    try {
      this.journal?.sync();
    } catch {
      // A disk that fails now fails the count only: it lags by the last record, as after a crash.
    }
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
