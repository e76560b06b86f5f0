// certhub's documents beside the domains: the panel's preferences, the CA budget's ledger, the CA
// limits' counts, the ACME journals (orders left open, challenge records written), and each domain's
// hosts and host tokens, each one JSON text read whole at start and written whole on change. A
// document is named by its path in the data folder (`prefs.json`, `acme/challenges.json`). There each
// is a file (0600 in 0700 folders, replaced atomically); in the shared store each is a row of
// `settings` (../postgres/settings-table.ts). The modules that own them say what the text holds.
import { readdir, readFile, rm, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { syncDirectory } from '../../../src/store/atomic.js';
import { ensureSecretDirectory, writeSecretFile } from '../../../src/store/secret.js';

export interface Documents {
  /** The document's text; undefined when there is none. Rejects (with the system's code) when it exists and cannot be read. */
  read(name: string): Promise<string | undefined>;
  /** Replaces the document whole: a reader sees the old text or the new, never a mix. */
  write(name: string, text: string): Promise<void>;
  /** Deletes the document; one that does not exist is no error. */
  remove(name: string): Promise<void>;
  /** The names of the documents directly in this folder (none when it does not exist). */
  list(): Promise<string[]>;
  /** Where the document is, for messages: a file's path, or the row and the server. */
  where(name: string): string;
  /** The documents under `folder` (an ACME account's folder), named from there. */
  within(folder: string): Documents;
}

/** The documents as files under a folder of the data folder, created (0700) at the first write. */
export class FileDocuments implements Documents {
  constructor(private readonly root: string) {}

  async read(name: string): Promise<string | undefined> {
    try {
      return await readFile(this.where(name), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async write(name: string, text: string): Promise<void> {
    const path = this.where(name);
    try {
      await writeSecretFile(path, text);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await ensureSecretDirectory(dirname(path));
      await writeSecretFile(path, text);
    }
  }

  async remove(name: string): Promise<void> {
    const path = this.where(name);
    try {
      await unlink(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    // Without this, a power failure could bring the file back.
    await syncDirectory(dirname(path));
  }

  async list(): Promise<string[]> {
    let entries;
    try {
      entries = await readdir(this.root, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const names: string[] = [];
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      // writeFileAtomic's temporary files (`.<name>.<hex>.tmp`), left by a crash mid-write.
      if (entry.name.startsWith('.') && entry.name.endsWith('.tmp')) await rm(join(this.root, entry.name), { force: true });
      else names.push(entry.name);
    }
    return names;
  }

  where(name: string): string {
    return join(this.root, name);
  }

  within(folder: string): Documents {
    return new FileDocuments(join(this.root, folder));
  }
}
