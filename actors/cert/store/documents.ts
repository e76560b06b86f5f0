// certhub's documents beside the domains: the panel's preferences, the CA budget's ledger, the CA
// limits' counts and the ACME journals (orders left open, challenge records written), each one JSON
// text read whole at start and written whole on change. A document is named by its path in the data
// folder (`prefs.json`, `acme/challenges.json`). There each is a file (0600, replaced atomically); in
// the shared store each is a row of `settings` (../postgres/settings-table.ts). The modules that own
// them say what the text holds.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeSecretFile } from '../../../src/store/secret.js';

export interface Documents {
  /** The document's text; undefined when there is none. Rejects (with the system's code) when it exists and cannot be read. */
  read(name: string): Promise<string | undefined>;
  /** Replaces the document whole: a reader sees the old text or the new, never a mix. */
  write(name: string, text: string): Promise<void>;
  /** Where the document is, for messages: a file's path, or the row and the server. */
  where(name: string): string;
  /** The documents under `folder` (an ACME account's folder), named from there. */
  within(folder: string): Documents;
}

/** The documents as files under a folder of the data folder (created by their owner). */
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

  write(name: string, text: string): Promise<void> {
    return writeSecretFile(this.where(name), text);
  }

  where(name: string): string {
    return join(this.root, name);
  }

  within(folder: string): Documents {
    return new FileDocuments(join(this.root, folder));
  }
}
