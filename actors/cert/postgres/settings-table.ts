// The store's documents (../store/documents.ts) in the shared store: one row of `settings` each, the
// text as its owner wrote it; a write replaces the row in one statement and raises its version.
import type { DocumentName, Documents } from '../store/documents.js';
import type { Postgres } from './connection.js';

export class PostgresDocuments implements Documents {
  constructor(private readonly postgres: Postgres) {}

  async read(name: DocumentName): Promise<string | undefined> {
    const [row] = await this.postgres.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [name]);
    return row?.value;
  }

  async write(name: DocumentName, text: string): Promise<void> {
    await this.postgres.query(
      `INSERT INTO settings (key, value) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET value = $2, version = settings.version + 1`,
      [name, text],
    );
  }

  where(name: DocumentName): string {
    return `settings/${name} in PostgreSQL at ${this.postgres.where}`;
  }
}
