// Which store a results file gets: SQLite where this Node has node:sqlite (22.5 and later without a
// flag from 22.13 and 23.4), a JSON Lines file elsewhere. A file already there keeps its kind: its
// first bytes say whether it is an SQLite database.
import { open as openFile } from 'node:fs/promises';
import type { Logger } from '../../../src/log/record.js';
import { JsonLinesStore } from './jsonl-store.js';
import { SqliteStore, type OpenSqlite } from './sqlite-store.js';
import type { ResultsStore } from './store.js';

const sqliteHeader = 'SQLite format 3\0';

export type StoreKind = 'sqlite' | 'jsonl';

export async function openResultsStore(path: string, log: Logger): Promise<{ store: ResultsStore; kind: StoreKind }> {
  const existing = await fileKind(path);
  const openDatabase = existing === 'jsonl' ? undefined : await loadSqlite();
  if (existing === 'sqlite' && openDatabase === undefined)
    throw new Error(`${path} is an SQLite database, and Node ${process.version} has no node:sqlite: run Node 22.13 or later, or give another file`);
  if (openDatabase !== undefined) return { store: new SqliteStore(path, openDatabase), kind: 'sqlite' };
  return { store: new JsonLinesStore(path, log), kind: 'jsonl' };
}

/** What the file at `path` holds; undefined when it does not exist or is empty. */
async function fileKind(path: string): Promise<StoreKind | undefined> {
  let handle;
  try {
    handle = await openFile(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(sqliteHeader.length), 0, sqliteHeader.length, 0);
    if (bytesRead === 0) return undefined;
    return buffer.subarray(0, bytesRead).toString('latin1') === sqliteHeader ? 'sqlite' : 'jsonl';
  } finally {
    await handle.close();
  }
}

/** node:sqlite's DatabaseSync, or undefined where this Node has none (Node 20, or 22 before 22.13 without --experimental-sqlite). */
async function loadSqlite(): Promise<OpenSqlite | undefined> {
  const specifier = 'node:sqlite';
  try {
    const sqlite = (await import(specifier)) as { DatabaseSync: new (path: string) => ReturnType<OpenSqlite> };
    return (path) => new sqlite.DatabaseSync(path);
  } catch {
    return undefined;
  }
}
