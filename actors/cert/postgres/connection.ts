// The connection to the shared store: a pool of `pg` clients, with the URL's password never written
// anywhere (where() names the server without it), and the driver's failures turned into errors that
// say whether the store cannot be reached (503: the node keeps serving what it holds) or refused.
import pg from 'pg';
import type { PoolClient, QueryResultRow } from 'pg';
import { OutpostError } from '../../../src/errors.js';

export interface PostgresOptions {
  /** `postgres://user:password@host:port/database` (libpq's URL form; `sslmode` and the rest as pg reads them). */
  url: string;
  /** Clients in the pool. */
  maxClients?: number;
  /** How long a connection attempt may take before the store counts as unreachable. */
  connectTimeoutMs?: number;
  /** The name the node shows in pg_stat_activity. */
  applicationName?: string;
}

export class Postgres {
  private readonly pool: pg.Pool;
  /** `host:port/database`: the server, without the credentials. */
  readonly where: string;

  constructor(options: PostgresOptions) {
    this.where = serverOf(options.url);
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.maxClients ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      application_name: options.applicationName ?? 'certhub',
    });
    // An idle client whose server went away emits here; the next query reconnects.
    this.pool.on('error', () => {});
  }

  async query<Row extends QueryResultRow>(sql: string, values: readonly unknown[] = []): Promise<Row[]> {
    return this.withClient(async (client) => (await client.query<Row>(sql, [...values])).rows);
  }

  async withClient<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.unreachable(error);
    }
    // A client whose connection failed is dropped from the pool, not handed to the next query.
    let broken = false;
    try {
      return await work(client);
    } catch (error) {
      if (!isConnectionFailure(error)) throw error;
      broken = true;
      throw this.unreachable(error);
    } finally {
      client.release(broken);
    }
  }

  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    return this.withClient(async (client) => {
      await client.query('BEGIN');
      try {
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      }
    });
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  private unreachable(error: unknown): OutpostError {
    if (error instanceof OutpostError) return error;
    return new OutpostError('ERR_UNAVAILABLE', `the store (PostgreSQL at ${this.where}) cannot be reached: ${messageOf(error)}`, { cause: error });
  }
}

/** `host:port/database` of a libpq URL; the user and password left out. */
export function serverOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port === '' ? '5432' : parsed.port}${parsed.pathname}`;
  } catch {
    return 'an unreadable URL';
  }
}

/** A failure of the connection itself (refused, reset, timed out, server shutting down), not of a statement. */
function isConnectionFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (/^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH)$/.test(code) || code.startsWith('08') || code === '57P01' || code === '57P03')
  )
    return true;
  return /Connection terminated|connection timeout/i.test(messageOf(error));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
