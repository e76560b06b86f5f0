// The shared store's foundation against a real PostgreSQL (a cluster of the test's own): migrations
// applied once however many nodes start together, a newer schema refused; one leader at a time, its
// epoch raised by each takeover, and a write fenced by an epoch that is gone refused; a server that
// is down is a clear 503 naming it without the password, and a killed one comes back with its data.
import test from 'ava';
import { startPostgres, type PostgresServer } from '../../../benchmarks/third-party/postgres.js';
import { Postgres } from '../../../actors/cert/postgres/connection.js';
import { LeaderLease, LeaseLostError } from '../../../actors/cert/postgres/leader-lease.js';
import { migrate, migrations } from '../../../actors/cert/postgres/migrations.js';
import { OutpostError } from '../../../src/errors.js';

async function withPostgres(run: (server: PostgresServer, connect: () => Postgres) => Promise<void>): Promise<void> {
  const server = await startPostgres();
  const opened: Postgres[] = [];
  try {
    await run(server, () => {
      const postgres = new Postgres({ url: server.url, connectTimeoutMs: 2000 });
      opened.push(postgres);
      return postgres;
    });
  } finally {
    await Promise.all(opened.map((postgres) => postgres.close().catch(() => {})));
    await server.stop();
  }
}

test('three nodes migrating at once apply each migration once; a schema newer than the node knows is refused', async (t) => {
  await withPostgres(async (_server, connect) => {
    const outcomes = await Promise.all([connect(), connect(), connect()].map((postgres) => migrate(postgres)));
    const newest = migrations.at(-1)?.version ?? 0;
    t.deepEqual(
      outcomes.map((outcome) => outcome.version),
      [newest, newest, newest],
    );
    t.is(outcomes.flatMap((outcome) => outcome.applied).length, migrations.length, 'each migration applied by one node only');
    const postgres = connect();
    t.deepEqual(
      (await postgres.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).map((row) => row.version),
      migrations.map((migration) => migration.version),
    );
    t.deepEqual((await migrate(postgres)).applied, []);

    await postgres.query("INSERT INTO schema_migrations (version, name) VALUES (999, 'from a newer certhub')");
    const refused = await t.throwsAsync(migrate(postgres));
    t.regex(refused?.message ?? '', new RegExp(`schema is at version 999, newer than this certhub knows \\(${newest}\\): upgrade certhub`));
  });
});

test("one leader at a time: a takeover after expiry raises the epoch, and the old leader's fenced write is refused", async (t) => {
  await withPostgres(async (_server, connect) => {
    const postgres = connect();
    await migrate(postgres);
    const first = new LeaderLease(postgres, 'node-a', 30_000);
    const second = new LeaderLease(connect(), 'node-b', 30_000);

    const held = await first.acquire();
    t.truthy(held);
    t.is(await second.acquire(), undefined, 'an unexpired lease is not taken');
    t.is((await first.acquire())?.epoch, held?.epoch, 'renewing keeps the epoch');
    t.deepEqual(await first.leader(), { node: 'node-a', epoch: held?.epoch ?? -1 });
    await first.fenced(held?.epoch ?? -1, (client) => client.query("INSERT INTO settings (key, value) VALUES ('written-by', 'node-a')"));

    // node-a pauses past its expiry (as a stopped VM would); node-b takes over.
    await postgres.query("UPDATE leader_lease SET expires_at = now() - interval '1 second'");
    const taken = await second.acquire();
    t.is(taken?.epoch, (held?.epoch ?? 0) + 1);
    const late = await t.throwsAsync(
      first.fenced(held?.epoch ?? -1, (client) => client.query("UPDATE settings SET value = 'node-a, late' WHERE key = 'written-by'")),
      { instanceOf: LeaseLostError },
    );
    t.regex(late?.message ?? '', /node node-a no longer holds the leader lease of epoch \d+/);
    t.deepEqual(await postgres.query("SELECT value FROM settings WHERE key = 'written-by'"), [{ value: 'node-a' }], 'the late write changed nothing');
    t.is(await first.acquire(), undefined);

    // A release hands over at once, with a new epoch.
    await second.release(taken?.epoch ?? -1);
    t.is(await second.leader(), undefined);
    t.is((await first.acquire())?.epoch, (taken?.epoch ?? 0) + 1);
  });
});

test('the store down is a 503 naming the server without its password; killed with -9, it comes back with its data', async (t) => {
  await withPostgres(async (server, connect) => {
    const postgres = connect();
    await migrate(postgres);
    await postgres.query("INSERT INTO settings (key, value) VALUES ('kept', '1')");
    await server.halt();
    const down = await t.throwsAsync(postgres.query('SELECT 1'), { instanceOf: OutpostError });
    t.is((down as OutpostError | undefined)?.code, 'ERR_UNAVAILABLE');
    t.regex(down?.message ?? '', new RegExp(`the store \\(PostgreSQL at 127\\.0\\.0\\.1:${server.port}/outpost\\) cannot be reached`));
    const password = new URL(server.url).password;
    t.false(down?.message.includes(password), 'the password is never in a message');
    await server.start();
    t.deepEqual(await postgres.query("SELECT value FROM settings WHERE key = 'kept'"), [{ value: '1' }]);

    await server.kill();
    await t.throwsAsync(postgres.query('SELECT 1'), { message: /cannot be reached/ });
    await server.start();
    t.deepEqual(await postgres.query("SELECT value FROM settings WHERE key = 'kept'"), [{ value: '1' }], 'crash recovery kept the row');
  });
});
