// The change feed against a real PostgreSQL (a cluster of the test's own): a domain and a document
// written by one node reach another node's feed with their table, key, version and writer, a removal
// with no version; with the server stopped the feed says it is down, and when the server is back it
// says resync (what changed meanwhile is unknown) and goes on telling changes.
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { startPostgres } from '../../../benchmarks/third-party/postgres.js';
import { ChangeFeed, type StoreChange } from '../../../actors/cert/postgres/change-feed.js';
import { Postgres } from '../../../actors/cert/postgres/connection.js';
import { PostgresDomainTable } from '../../../actors/cert/postgres/domain-table.js';
import { migrate } from '../../../actors/cert/postgres/migrations.js';
import { SecretBox, storeKey } from '../../../actors/cert/postgres/secret-box.js';
import { PostgresDocuments } from '../../../actors/cert/postgres/settings-table.js';
import { testRecord } from '../../helpers/cert-files.js';

type FeedEvent = { kind: 'change'; change: StoreChange } | { kind: 'resync' } | { kind: 'down'; reason: string };

/** The feed's events in order; `next()` waits for the next one. */
class FeedEvents {
  private readonly events: FeedEvent[] = [];
  private waiting: ((event: FeedEvent) => void) | undefined;

  readonly listener = {
    change: (change: StoreChange) => this.push({ kind: 'change', change }),
    resync: () => this.push({ kind: 'resync' }),
    down: (reason: string) => this.push({ kind: 'down', reason }),
  };

  next(): Promise<FeedEvent> {
    const event = this.events.shift();
    if (event !== undefined) return Promise.resolve(event);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  private push(event: FeedEvent): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting === undefined) this.events.push(event);
    else waiting(event);
  }
}

test("another node's writes reach the feed; a stopped server is down, then resync, then changes again", async (t) => {
  const server = await startPostgres();
  const writer = new Postgres({ url: server.url, applicationName: 'node-a', connectTimeoutMs: 2000 });
  const events = new FeedEvents();
  const feed = new ChangeFeed({ url: server.url, applicationName: 'node-b', connectTimeoutMs: 2000, firstRetryMs: 50, maxRetryMs: 200 }, events.listener);
  try {
    await migrate(writer);
    await feed.start();
    t.deepEqual(await events.next(), { kind: 'resync' }, 'a first connection is a resync too');
    t.true(feed.up);

    const box = new SecretBox(storeKey(randomBytes(32)));
    const domains = new PostgresDomainTable(writer, box);
    const record = testRecord('app');
    await domains.write({ record, material: undefined });
    await domains.write({ record: { ...record, target: '203.0.113.9' }, material: undefined });
    await new PostgresDocuments(writer, box).write('prefs.json', '{}\n');
    await domains.remove(record.name);
    const seen = [await events.next(), await events.next(), await events.next(), await events.next()];
    t.deepEqual(seen, [
      { kind: 'change', change: { table: 'domains', key: 'app.example.com', version: 1, node: 'node-a' } },
      { kind: 'change', change: { table: 'domains', key: 'app.example.com', version: 2, node: 'node-a' } },
      { kind: 'change', change: { table: 'settings', key: 'prefs.json', version: 1, node: 'node-a' } },
      { kind: 'change', change: { table: 'domains', key: 'app.example.com', version: null, node: 'node-a' } },
    ]);

    await server.halt();
    const down = await events.next();
    t.is(down.kind, 'down');
    t.regex(down.kind === 'down' ? down.reason : '', new RegExp(`^the change feed from PostgreSQL at 127\\.0\\.0\\.1:${server.port}/outpost is down: `));
    t.false(feed.up);
    t.false(JSON.stringify(down).includes(new URL(server.url).password), 'no password in the reason');
    await server.start();
    // Each failed attempt while the server starts is another `down`; the first success is a resync.
    let event = await events.next();
    while (event.kind === 'down') event = await events.next();
    t.deepEqual(event, { kind: 'resync' });
    t.true(feed.up);
    await domains.write({ record: testRecord('later'), material: undefined });
    t.deepEqual(await events.next(), { kind: 'change', change: { table: 'domains', key: 'later.example.com', version: 1, node: 'node-a' } });
  } finally {
    await feed.close();
    await writer.close().catch(() => {});
    await server.stop();
  }
});
