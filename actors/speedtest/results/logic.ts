// The results the server keeps: newest first in memory (at most the configured count), every save on
// disk before it is answered. Pure apart from the store it is given and the id maker.
import { randomBytes } from 'node:crypto';
import { gradedLatencyMs, gradeUses } from '../site/grades.js';
import type { ResultInput, SavedResult } from '../site/result.js';
import type { ResultsStore } from './store.js';

export interface ResultsOptions {
  maxResults: number;
  keepAddress: boolean;
  serverName: string;
  now?: () => Date;
  /** 128 random bits, base64url: an id nobody guesses. */
  newId?: () => string;
}

export const newResultId = () => randomBytes(16).toString('base64url');

export class ResultsBook {
  /** Newest first. */
  private results: SavedResult[] = [];
  private readonly byId = new Map<string, SavedResult>();
  /** Saves go to the store one after another, in the order they came. */
  private writing: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly store: ResultsStore,
    private readonly options: ResultsOptions,
  ) {}

  static async open(store: ResultsStore, options: ResultsOptions): Promise<ResultsBook> {
    const book = new ResultsBook(store, options);
    for (const result of await store.load(options.maxResults)) book.remember(result);
    return book;
  }

  get size(): number {
    return this.results.length;
  }

  async save(input: ResultInput, address: string): Promise<SavedResult> {
    const { now = () => new Date(), newId = newResultId } = this.options;
    const result: SavedResult = {
      id: newId(),
      at: now().toISOString(),
      server_name: this.options.serverName,
      ...input,
      grades: gradeUses({
        loadedLatencyMs: gradedLatencyMs(input.ping_ms, [input.download_loaded_latency_ms, input.upload_loaded_latency_ms]),
        jitterMs: input.jitter_ms,
        lossPercent: input.loss_percent,
      }),
      ...(this.options.keepAddress ? { address } : {}),
    };
    const written = this.writing.then(() => this.store.append(result, this.options.maxResults));
    this.writing = written.catch(() => undefined);
    await written;
    this.remember(result);
    return result;
  }

  get(id: string): SavedResult | undefined {
    return this.byId.get(id);
  }

  recent(limit: number): SavedResult[] {
    return this.results.slice(0, limit);
  }

  close(): Promise<void> {
    return this.writing.then(() => this.store.close());
  }

  private remember(result: SavedResult): void {
    this.results.unshift(result);
    this.byId.set(result.id, result);
    while (this.results.length > this.options.maxResults) this.byId.delete(this.results.pop()!.id);
  }
}
