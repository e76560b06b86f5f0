// certhub's small documents beside the domains: the panel's preferences, the CA budget's ledger and
// the CA limits' counts, each one JSON text read whole at start and written whole on change. In the
// data folder each is a file (0600, replaced atomically); in the shared store each is a row of
// `settings` (../postgres/settings-table.ts). The modules that own them say what the text holds.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeSecretFile } from '../../../src/store/secret.js';

/** A document's name: the file it is in the data folder, and its key in the shared store. */
export type DocumentName = 'prefs.json' | 'budget.json' | 'ca-limits.json';

export interface Documents {
  /** The document's text; undefined when there is none. Rejects (with the system's code) when it exists and cannot be read. */
  read(name: DocumentName): Promise<string | undefined>;
  /** Replaces the document whole: a reader sees the old text or the new, never a mix. */
  write(name: DocumentName, text: string): Promise<void>;
  /** Where the document is, for messages: a file's path, or the row and the server. */
  where(name: DocumentName): string;
}

/** The documents as files in the data folder. */
export class FileDocuments implements Documents {
  constructor(private readonly dataDir: string) {}

  async read(name: DocumentName): Promise<string | undefined> {
    try {
      return await readFile(this.where(name), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  write(name: DocumentName, text: string): Promise<void> {
    return writeSecretFile(this.where(name), text);
  }

  where(name: DocumentName): string {
    return join(this.dataDir, name);
  }
}
