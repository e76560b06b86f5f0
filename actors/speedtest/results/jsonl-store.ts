// Results in a JSON Lines file, where this Node has no node:sqlite: one result a line, each save one
// write with O_APPEND and an fsync. A crash can leave only the last line torn; loading drops it and
// rewrites the file whole (atomically). Past twice the kept count of lines, the file is written anew with
// the newest only.
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { writeFileAtomic } from '../../../src/store/atomic.js';
import type { Logger } from '../../../src/log/record.js';
import type { SavedResult } from '../site/result.js';
import type { ResultsStore } from './store.js';

export class JsonLinesStore implements ResultsStore {
  private handle: FileHandle | undefined;
  /** Lines in the file, and the results it holds, oldest first. */
  private lines = 0;
  private kept: SavedResult[] = [];
  /** The file may not end with a whole line: the next save writes it anew. */
  private stale = false;

  constructor(
    private readonly path: string,
    private readonly log: Logger,
  ) {}

  async load(max: number): Promise<SavedResult[]> {
    let text = '';
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const results: SavedResult[] = [];
    let damaged = 0;
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const result = parsedResult(line);
      if (result === undefined) damaged++;
      else results.push(result);
    }
    if (damaged > 0) this.log.warn(`dropped ${damaged} unreadable line(s) of ${this.path} (a write cut short by a crash)`);
    this.kept = results.slice(-max);
    // Appends go after whole lines only: a file with a torn or unended last line is written anew first.
    this.stale = damaged > 0 || results.length > max || text === '' || !text.endsWith('\n');
    if (this.stale) await this.rewrite();
    else {
      this.handle = await open(this.path, 'a', 0o600);
      this.lines = results.length;
    }
    return [...this.kept];
  }

  async append(result: SavedResult, max: number): Promise<void> {
    this.kept.push(result);
    if (this.kept.length > max) this.kept.splice(0, this.kept.length - max);
    if (this.stale || this.lines + 1 > 2 * max) {
      await this.rewrite();
      return;
    }
    const handle = this.handle!;
    try {
      await handle.write(`${JSON.stringify(result)}\n`);
      await handle.sync();
      this.lines++;
    } catch (error) {
      // The line may be on disk in part: the next save writes the file anew rather than after it.
      this.kept.pop();
      this.stale = true;
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.handle?.close();
    this.handle = undefined;
  }

  /** Writes the kept results as the whole file (atomically), and opens it for appending. */
  private async rewrite(): Promise<void> {
    await this.handle?.close();
    this.handle = undefined;
    await writeFileAtomic(this.path, this.kept.map((result) => `${JSON.stringify(result)}\n`).join(''), { mode: 0o600 });
    this.handle = await open(this.path, 'a', 0o600);
    this.lines = this.kept.length;
    this.stale = false;
  }
}

function parsedResult(line: string): SavedResult | undefined {
  try {
    const value = JSON.parse(line) as SavedResult;
    return typeof value === 'object' && value !== null && typeof value.id === 'string' && typeof value.at === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
