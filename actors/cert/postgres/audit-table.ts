// The audit log in the shared store: the table `audit`, one row per line, each line exactly as the
// files store writes it (../audit/chain.ts), so the same hash chain runs through the rows and one
// verifier checks both. Every node appends: an append holds a transaction-scoped advisory lock, reads
// the last line and writes its lines after it, so appends of several nodes form one chain, in order.
// Lines are never updated or deleted by certhub.
import type { AuditEntry, AuditInput } from '../audit/entry.js';
import { ChainVerifier, entryLine, genesisHash, lineHash, parseEntry, type ChainVerdict } from '../audit/chain.js';
import type { AuditApi, AuditPage, AuditQuery } from '../audit/protocol.js';
import type { Postgres } from './connection.js';

/** The lock appends take: a constant of this store's own (the bytes of "certaudt"). */
const appendLock = 0x6365727461756474n;
/** Rows one step of a verification reads. */
const verifyBatch = 1000;

export class PostgresAuditTable implements AuditApi {
  constructor(private readonly postgres: Postgres) {}

  async append(inputs: readonly AuditInput[]): Promise<void> {
    if (inputs.length === 0) return;
    await this.postgres.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [appendLock.toString()]);
      const { rows } = await client.query<{ seq: string; line: string }>('SELECT seq, line FROM audit ORDER BY seq DESC LIMIT 1');
      let seq = rows[0] === undefined ? 0 : Number(rows[0].seq);
      let prev = rows[0] === undefined ? genesisHash : lineHash(rows[0].line);
      const values: unknown[] = [];
      for (const input of inputs) {
        seq += 1;
        const line = entryLine({ seq, prev, ...input });
        values.push(seq, line, input.action, input.domain);
        prev = lineHash(line);
      }
      const tuples = inputs.map((_, index) => `($${index * 4 + 1}, $${index * 4 + 2}, $${index * 4 + 3}, $${index * 4 + 4})`);
      await client.query(`INSERT INTO audit (seq, line, action, domain) VALUES ${tuples.join(', ')}`, values);
    });
  }

  /** One page, newest first, filtered as the files store filters (a domain by its full name or its label). */
  async page(query: AuditQuery): Promise<AuditPage> {
    const conditions: string[] = [];
    const values: unknown[] = [];
    if (query.before !== undefined) conditions.push(`seq < $${values.push(query.before)}`);
    if (query.action !== undefined) conditions.push(`action = $${values.push(query.action)}`);
    if (query.domain !== undefined) {
      const domain = values.push(query.domain);
      conditions.push(`(domain = $${domain} OR starts_with(domain, $${domain} || '.'))`);
    }
    const where = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
    const rows = await this.postgres.query<{ line: string }>(
      `SELECT line FROM audit ${where} ORDER BY seq DESC LIMIT $${values.push(query.limit + 1)}`,
      values,
    );
    const entries = rows.map((row) => parseEntry(row.line)).filter((entry): entry is AuditEntry => entry !== undefined);
    if (entries.length <= query.limit) return { entries, next_before: null };
    const page = entries.slice(0, query.limit);
    return { entries: page, next_before: page.at(-1)?.seq ?? null };
  }

  /** The chain's verdict over every row in seq order, read in batches (constant memory). */
  async verify(): Promise<ChainVerdict> {
    const verifier = new ChainVerifier();
    let after = 0;
    for (;;) {
      const rows = await this.postgres.query<{ seq: string; line: string }>('SELECT seq, line FROM audit WHERE seq > $1 ORDER BY seq LIMIT $2', [
        after,
        verifyBatch,
      ]);
      for (const row of rows) verifier.line(Buffer.from(row.line, 'utf8'));
      const last = rows.at(-1);
      if (last === undefined || rows.length < verifyBatch) break;
      after = Number(last.seq);
    }
    return verifier.end(0);
  }
}
