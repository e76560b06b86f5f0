// The store's documents (../store/documents.ts) in the shared store: one row of `settings` each, keyed
// by the document's path, its text sealed under the store key (some, like the order journal, hold
// private keys; sealing them all keeps a dump free of every one). A write replaces the row in one
// statement and raises its version.
import type { Documents } from '../store/documents.js';
import type { Postgres } from './connection.js';
import type { SecretBox } from './secret-box.js';

export class PostgresDocuments implements Documents {
  constructor(
    private readonly postgres: Postgres,
    private readonly box: SecretBox,
    /** The folder these documents are in, with its trailing `/`; empty at the top. */
    private readonly folder = '',
  ) {}

  async read(name: string): Promise<string | undefined> {
    const key = this.folder + name;
    const [row] = await this.postgres.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key]);
    return row === undefined ? undefined : this.box.open(row.value, placeOf(key));
  }

  async write(name: string, text: string): Promise<void> {
    const key = this.folder + name;
    await this.postgres.query(
      `INSERT INTO settings (key, value) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET value = $2, version = settings.version + 1`,
      [key, this.box.seal(text, placeOf(key))],
    );
  }

  async remove(name: string): Promise<void> {
    await this.postgres.query('DELETE FROM settings WHERE key = $1', [this.folder + name]);
  }

  async list(): Promise<string[]> {
    const rows = await this.postgres.query<{ key: string }>('SELECT key FROM settings WHERE starts_with(key, $1) ORDER BY key', [this.folder]);
    return rows.map((row) => row.key.slice(this.folder.length)).filter((name) => !name.includes('/'));
  }

  where(name: string): string {
    return `settings/${this.folder}${name} in PostgreSQL at ${this.postgres.where}`;
  }

  within(folder: string): Documents {
    return new PostgresDocuments(this.postgres, this.box, `${this.folder}${folder}/`);
  }
}

function placeOf(key: string): string {
  return `settings/${key}`;
}
