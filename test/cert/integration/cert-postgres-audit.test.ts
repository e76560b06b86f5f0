// The audit log in a real PostgreSQL (a cluster of the test's own): two nodes appending at once make
// one chain, seq 1 to N with no gap, that the files store's verifier accepts; pages filter and page as
// the file's do; an edited line, or a removed one, fails the verification naming the line.
import test from 'ava';
import { startPostgres } from '../../../benchmarks/third-party/postgres.js';
import type { AuditInput } from '../../../actors/cert/audit/entry.js';
import { PostgresAuditTable } from '../../../actors/cert/postgres/audit-table.js';
import { Postgres } from '../../../actors/cert/postgres/connection.js';
import { migrate } from '../../../actors/cert/postgres/migrations.js';

const input = (action: AuditInput['action'], domain: string | null, note: string): AuditInput => ({
  at: '2026-01-01T00:00:00.000Z',
  action,
  by: 'admin',
  client: '127.0.0.1',
  domain,
  outcome: 'ok',
  note,
});

test('two nodes append one chain; pages filter; an edit or a removal fails the verification at its line', async (t) => {
  const server = await startPostgres();
  const a = new Postgres({ url: server.url, applicationName: 'node-a' });
  const b = new Postgres({ url: server.url, applicationName: 'node-b' });
  try {
    await migrate(a);
    const nodeA = new PostgresAuditTable(a);
    const nodeB = new PostgresAuditTable(b);
    const batches = Array.from({ length: 20 }, (_, index) => [
      input('add', `d${index}.example.com`, `first of ${index}`),
      input('remove', `d${index}.example.com`, `second of ${index}`),
    ]);
    await Promise.all(batches.map((batch, index) => (index % 2 === 0 ? nodeA : nodeB).append(batch)));

    const verdict = await nodeB.verify();
    t.like(verdict, { ok: true, entries: 40, torn: null });
    const all = await nodeA.page({ limit: 100 });
    t.deepEqual(
      all.entries.map((entry) => entry.seq),
      Array.from({ length: 40 }, (_, index) => 40 - index),
    );
    // A batch stays together: its two lines are neighbours in the chain.
    for (const entry of all.entries.filter((one) => one.action === 'add'))
      t.is(all.entries.find((one) => one.seq === entry.seq + 1)?.note, entry.note?.replace('first', 'second'));

    const removes = await nodeA.page({ action: 'remove', limit: 15 });
    t.is(removes.entries.length, 15);
    t.true(removes.entries.every((entry) => entry.action === 'remove'));
    const rest = await nodeA.page({ action: 'remove', limit: 15, before: removes.next_before ?? 0 });
    t.is(rest.entries.length, 5);
    t.is(rest.next_before, null);
    t.deepEqual(
      (await nodeA.page({ domain: 'd7', limit: 10 })).entries.map((entry) => entry.domain),
      ['d7.example.com', 'd7.example.com'],
    );

    await a.query(`UPDATE audit SET line = replace(line, 'first of 3', 'first of 99') WHERE seq = (SELECT seq FROM audit WHERE line LIKE '%first of 3"%')`);
    const [edited] = await a.query<{ seq: string }>(`SELECT seq FROM audit WHERE line LIKE '%first of 99"%'`);
    const broken = await nodeA.verify();
    t.like(broken, { ok: false, line: Number(edited?.seq) + 1 });

    await a.query(`UPDATE audit SET line = replace(line, 'first of 99', 'first of 3') WHERE seq = $1`, [edited?.seq]);
    t.like(await nodeA.verify(), { ok: true, entries: 40 });
    await a.query('DELETE FROM audit WHERE seq = 12');
    t.like(await nodeA.verify(), { ok: false, line: 12 });
  } finally {
    await Promise.all([a.close(), b.close()].map((closing) => closing.catch(() => {})));
    await server.stop();
  }
});
