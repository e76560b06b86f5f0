// What other nodes change in the shared store, as it commits: one connection of its own LISTENs on
// certhub_changes, where every write of a row is told (migration 2's trigger), and hands each change
// to the node's replica. A notice sent while the connection was down is lost for good, so after every
// (re)connection the feed says `resync`: the node reads the store again to catch up. A lost
// connection is retried with a growing delay, and `up` says whether the feed is live.
import pg from 'pg';
import { serverOf, type PostgresOptions } from './connection.js';

export const changeChannel = 'certhub_changes';

export interface StoreChange {
  /** The table: `domains`, `settings`. */
  table: string;
  /** The row's key: a domain's name, a document's path. */
  key: string;
  /** The row's version after the change; null when the row was removed. */
  version: number | null;
  /** The node whose write it was (its application_name). */
  node: string;
}

export interface ChangeFeedListener {
  change(change: StoreChange): void;
  /** Connected (again): whatever changed while the feed was down is unknown, so read it all again. */
  resync(): void;
  /** The connection was lost; the feed is retrying. */
  down(reason: string): void;
}

export interface ChangeFeedOptions extends PostgresOptions {
  /** The first delay before a reconnection, doubled up to `maxRetryMs`. */
  firstRetryMs?: number;
  maxRetryMs?: number;
}

export class ChangeFeed {
  private client: pg.Client | undefined;
  private retryMs: number;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  /** Whether the feed is connected and listening. */
  up = false;

  constructor(
    private readonly options: ChangeFeedOptions,
    private readonly listener: ChangeFeedListener,
  ) {
    this.retryMs = options.firstRetryMs ?? 100;
  }

  /** Connects and listens; resolves after the first attempt, connected or not (it keeps trying). */
  async start(): Promise<void> {
    await this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.up = false;
    await this.client?.end().catch(() => {});
    this.client = undefined;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.options.url,
      connectionTimeoutMillis: this.options.connectTimeoutMs ?? 5000,
      application_name: `${this.options.applicationName ?? 'certhub'} feed`,
    });
    // Both fire on a lost connection; the first one counts.
    let lost = false;
    const onLost = (reason: string) => {
      if (lost || this.closed) return;
      lost = true;
      this.up = false;
      this.client = undefined;
      client.end().catch(() => {});
      this.listener.down(`the change feed from PostgreSQL at ${serverOf(this.options.url)} is down: ${reason}`);
      this.scheduleRetry();
    };
    client.on('error', (error) => onLost(error.message));
    client.on('end', () => onLost('the connection ended'));
    client.on('notification', (message) => {
      if (message.channel !== changeChannel || message.payload === undefined) return;
      const change = parseChange(message.payload);
      if (change !== undefined) this.listener.change(change);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${changeChannel}`);
    } catch (error) {
      onLost(error instanceof Error ? error.message : String(error));
      return;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.up = true;
    this.retryMs = this.options.firstRetryMs ?? 100;
    this.listener.resync();
  }

  private scheduleRetry(): void {
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, this.options.maxRetryMs ?? 5000);
    this.retry = setTimeout(() => void this.connect(), delay);
  }
}

function parseChange(payload: string): StoreChange | undefined {
  try {
    const parsed = JSON.parse(payload) as Partial<Record<keyof StoreChange, unknown>>;
    if (typeof parsed.table !== 'string' || typeof parsed.key !== 'string' || typeof parsed.node !== 'string') return undefined;
    const version = typeof parsed.version === 'number' ? parsed.version : null;
    return { table: parsed.table, key: parsed.key, version, node: parsed.node };
  } catch {
    return undefined;
  }
}
