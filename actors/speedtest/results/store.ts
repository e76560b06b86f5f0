// Where saved results live on disk: one interface, two stores (an SQLite database through node:sqlite,
// or a JSON Lines file where this Node has no node:sqlite), chosen by open-store.ts.
import type { SavedResult } from '../site/result.js';

export interface ResultsStore {
  /** What the store holds, oldest first, at most `max` (the newest). */
  load(max: number): Promise<SavedResult[]>;
  /** Keeps `result` and drops all but the newest `max`, in one step a crash cannot split. */
  append(result: SavedResult, max: number): Promise<void>;
  close(): Promise<void>;
}
