// Results in an SQLite database through node:sqlite (Node 22.5 and later): each save is one
// transaction that inserts the result and deletes all but the newest, so a crash leaves the database
// as it was before the save or after it (SQLite's journal; synchronous=FULL makes the commit durable).
import type { SavedResult } from '../site/result.js';
import type { ResultsStore } from './store.js';

/** What this store uses of node:sqlite's DatabaseSync (typed here: the Node 20 types have no node:sqlite). */
export interface SqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): { run(...values: unknown[]): unknown; all(...values: unknown[]): unknown[] };
  close(): void;
}

export type OpenSqlite = (path: string) => SqliteDatabase;

export class SqliteStore implements ResultsStore {
  private readonly database: SqliteDatabase;

  constructor(path: string, openDatabase: OpenSqlite) {
    this.database = openDatabase(path);
    this.database.exec(`
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = FULL;
      CREATE TABLE IF NOT EXISTS results (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        body TEXT NOT NULL
      );
    `);
  }

  load(max: number): Promise<SavedResult[]> {
    const rows = this.database.prepare('SELECT body FROM (SELECT seq, body FROM results ORDER BY seq DESC LIMIT ?) ORDER BY seq').all(max) as {
      body: string;
    }[];
    return Promise.resolve(rows.map((row) => JSON.parse(row.body) as SavedResult));
  }

  append(result: SavedResult, max: number): Promise<void> {
    this.database.exec('BEGIN IMMEDIATE');
    try {
      this.database.prepare('INSERT INTO results (id, body) VALUES (?, ?)').run(result.id, JSON.stringify(result));
      this.database.prepare('DELETE FROM results WHERE seq <= (SELECT seq FROM results ORDER BY seq DESC LIMIT 1 OFFSET ?)').run(max);
      this.database.exec('COMMIT');
    } catch (error) {
      this.database.exec('ROLLBACK');
      throw error;
    }
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.database.close();
    return Promise.resolve();
  }
}
