// The shared store's schema, as numbered migrations. `migrate` applies those a database lacks, each in
// its own transaction (PostgreSQL's DDL is transactional: a migration lands whole or not at all), under
// an advisory lock so that nodes started together apply each one once. A database at a newer version
// than this build knows is refused: an older node must not write into a schema it does not understand.
import type { PoolClient } from 'pg';
import { OutpostError } from '../../../src/errors.js';
import type { Postgres } from './connection.js';

export interface Migration {
  version: number;
  /** What it adds, as `certhub store migrate` reports it. */
  name: string;
  sql: string;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'the leader lease, settings, domains',
    sql: `
      -- One row: which node orders, until when, and the epoch every leader write is checked against.
      CREATE TABLE leader_lease (
        id smallint PRIMARY KEY CHECK (id = 1),
        holder text,
        epoch bigint NOT NULL,
        expires_at timestamptz NOT NULL
      );
      INSERT INTO leader_lease (id, holder, epoch, expires_at) VALUES (1, NULL, 0, '-infinity');
      -- The documents the nodes share besides domains (store/documents.ts: preferences, the CA
      -- budget's ledger, the CA limits' counts), by name, as the text their owner wrote.
      CREATE TABLE settings (
        key text PRIMARY KEY,
        value text NOT NULL,
        version bigint NOT NULL DEFAULT 1
      );
      -- A domain: its record (JSON, the token sealed inside it) and its material, the key sealed.
      -- json, not jsonb: the text is kept as written, key order included, so a domain copied from
      -- files and back is the same file byte for byte.
      CREATE TABLE domains (
        name text PRIMARY KEY,
        record json NOT NULL,
        material json,
        version bigint NOT NULL DEFAULT 1,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 2,
    name: "a notice on each change, for every node's replica",
    sql: `
      -- Every change of a row is told on the channel certhub_changes, as JSON: the table, the row's
      -- key, its version (null for a removal), and the node that made it (its application_name), so
      -- every other node reads that row again (change-feed.ts). Sent at commit, in commit order.
      CREATE FUNCTION certhub_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        changed jsonb := to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END);
      BEGIN
        PERFORM pg_notify('certhub_changes', json_build_object(
          'table', TG_TABLE_NAME,
          'key', changed ->> TG_ARGV[0],
          'version', CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE (changed ->> 'version')::bigint END,
          'node', current_setting('application_name')
        )::text);
        RETURN NULL;
      END;
      $$;
      CREATE TRIGGER domains_changed AFTER INSERT OR UPDATE OR DELETE ON domains
        FOR EACH ROW EXECUTE FUNCTION certhub_notify_change('name');
      CREATE TRIGGER settings_changed AFTER INSERT OR UPDATE OR DELETE ON settings
        FOR EACH ROW EXECUTE FUNCTION certhub_notify_change('key');
    `,
  },
  {
    version: 3,
    name: 'the audit log',
    sql: `
      -- The audit log's lines as the files store writes them (audit/chain.ts: each names the hash of
      -- the one before), by seq; action and domain beside the line for the panel's filters.
      CREATE TABLE audit (
        seq bigint PRIMARY KEY,
        line text NOT NULL,
        action text NOT NULL,
        domain text
      );
      CREATE INDEX audit_action ON audit (action, seq);
      CREATE INDEX audit_domain ON audit (domain, seq);
    `,
  },
];

/** The lock every node takes to migrate: a constant of this store's own (the bytes of "certhub1"). */
const migrationLock = 0x6365727468756231n;

export interface MigrationOutcome {
  /** The versions this call applied, in order. */
  applied: Migration[];
  version: number;
}

export async function migrate(postgres: Postgres, known: readonly Migration[] = migrations): Promise<MigrationOutcome> {
  return postgres.withClient(async (client) => {
    await client.query('SELECT pg_advisory_lock($1)', [migrationLock.toString()]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const current = await schemaVersion(client);
      const newest = known.at(-1)?.version ?? 0;
      if (current > newest)
        throw new OutpostError('ERR_CONFLICT', `the store's schema is at version ${current}, newer than this certhub knows (${newest}): upgrade certhub`);
      const applied: Migration[] = [];
      for (const migration of known.filter((entry) => entry.version > current)) {
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw new OutpostError('ERR_INTERNAL', `migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`, { cause: error });
        }
        applied.push(migration);
      }
      return { applied, version: Math.max(current, newest) };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [migrationLock.toString()]);
    }
  });
}

/** The newest migration applied; 0 for a database that has none. */
export async function schemaVersion(client: PoolClient): Promise<number> {
  const { rows: table } = await client.query<{ exists: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS exists");
  if (table[0]?.exists !== true) return 0;
  const { rows } = await client.query<{ version: number }>('SELECT coalesce(max(version), 0) AS version FROM schema_migrations');
  return rows[0]?.version ?? 0;
}
