// The results actor's messages: what the fronts hand it to keep and ask of it. Types only; the
// shapes of a result are the API's (site/result.ts).
import type { ResultInput, SavedResult } from '../site/result.js';

export interface ResultsConfig {
  /** `results_file`: an SQLite database where node:sqlite exists, a JSON Lines file elsewhere. */
  file: string;
  /** `results_max`: past it, the oldest results go. */
  maxResults: number;
  /** `results_keep_address`: keep the address a result was sent from. */
  keepAddress: boolean;
  /** The server's name, kept with each result. */
  serverName: string;
}

export interface ResultsApi {
  /** Keeps a result, on disk before this resolves; `address` is kept only when the config says so. */
  save(input: ResultInput, address: string): Promise<SavedResult>;
  /** The result with this id; undefined when there is none (never saved, or dropped as the oldest). */
  get(id: string): Promise<SavedResult | undefined>;
  /** The newest `limit` results, newest first. */
  recent(limit: number): Promise<SavedResult[]>;
}
