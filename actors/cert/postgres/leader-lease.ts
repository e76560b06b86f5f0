// One node orders at a time: the node holding the lease row (leader_lease) until its expiry. Time is
// the database's (now()), so nodes whose clocks disagree still agree on who leads. Each takeover raises
// the epoch; a leader's writes go through `fenced`, which checks in the same transaction that the row
// still names this node and this epoch and is unexpired, holding the row (FOR SHARE) so that no
// takeover commits between the check and the write. A node paused past its expiry (a stopped VM, a
// long GC) therefore cannot write after the next leader started: its epoch is gone.
import type { PoolClient } from 'pg';
import { OutpostError } from '../../../src/errors.js';
import type { Postgres } from './connection.js';

export interface LeaseHold {
  epoch: number;
  /** The lease's expiry, in the database's time (ms since the epoch). */
  expiresAt: number;
}

export class LeaseLostError extends OutpostError {
  override readonly name: string = 'LeaseLostError';
  constructor(node: string, epoch: number) {
    super('ERR_CONFLICT', `node ${node} no longer holds the leader lease of epoch ${epoch}: another node leads, so this write is refused`);
  }
}

export class LeaderLease {
  constructor(
    private readonly postgres: Postgres,
    /** This node's name, unique in the cluster. */
    readonly node: string,
    private readonly ttlMs: number,
  ) {}

  /**
   * Takes the lease when it is free or expired, or extends it when this node holds it. Returns the
   * hold (the same epoch while this node keeps it unbroken, a new one after a takeover), or undefined
   * when another node holds an unexpired lease.
   */
  async acquire(): Promise<LeaseHold | undefined> {
    const rows = await this.postgres.query<{ epoch: string; expires_at: Date }>(
      `UPDATE leader_lease
          SET epoch = CASE WHEN holder = $1 AND expires_at > now() THEN epoch ELSE epoch + 1 END,
              holder = $1,
              expires_at = now() + make_interval(secs => $2::double precision / 1000)
        WHERE id = 1 AND (holder = $1 OR holder IS NULL OR expires_at <= now())
        RETURNING epoch, expires_at`,
      [this.node, this.ttlMs],
    );
    const row = rows[0];
    return row === undefined ? undefined : { epoch: Number(row.epoch), expiresAt: row.expires_at.getTime() };
  }

  /** Gives the lease up (at shutdown), so the next node need not wait for its expiry. */
  async release(epoch: number): Promise<void> {
    await this.postgres.query("UPDATE leader_lease SET holder = NULL, expires_at = '-infinity' WHERE id = 1 AND holder = $1 AND epoch = $2", [
      this.node,
      epoch,
    ]);
  }

  /** Who leads now: the holder and epoch of an unexpired lease, or undefined. */
  async leader(): Promise<{ node: string; epoch: number } | undefined> {
    const rows = await this.postgres.query<{ holder: string; epoch: string }>(
      'SELECT holder, epoch FROM leader_lease WHERE id = 1 AND holder IS NOT NULL AND expires_at > now()',
    );
    const row = rows[0];
    return row === undefined ? undefined : { node: row.holder, epoch: Number(row.epoch) };
  }

  /** Runs `write` in a transaction that commits only while this node still holds the lease of `epoch`. */
  async fenced<T>(epoch: number, write: (client: PoolClient) => Promise<T>): Promise<T> {
    return this.postgres.transaction(async (client) => {
      const { rowCount } = await client.query('SELECT 1 FROM leader_lease WHERE id = 1 AND holder = $1 AND epoch = $2 AND expires_at > now() FOR SHARE', [
        this.node,
        epoch,
      ]);
      if (rowCount !== 1) throw new LeaseLostError(this.node, epoch);
      return write(client);
    });
  }
}
