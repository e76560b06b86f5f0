// certhub's data in the shared store, against a real PostgreSQL (a cluster of the test's own): a
// domain one node writes, another reads back whole, its token and key opened; pg_dump of the database
// holds neither secret; a sealed value moved to another row, or sealed under a key the node lacks, is
// named and skipped, never loaded as another domain's secret; a removal is gone for every node. The
// documents beside the domains (preferences, the CA budget's ledger, an order journal, a folder of
// host-token lists) read back as written, sealed, and a damaged one is named by its row and server.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import test from 'ava';
import { postgresBin, startPostgres, type PostgresServer } from '../../../benchmarks/third-party/postgres.js';
import { Postgres } from '../../../actors/cert/postgres/connection.js';
import { PostgresDomainTable } from '../../../actors/cert/postgres/domain-table.js';
import { migrate } from '../../../actors/cert/postgres/migrations.js';
import { SecretBox, storeKey } from '../../../actors/cert/postgres/secret-box.js';
import { openHostTokenStore } from '../../../actors/cert/hosts/host-token-store.js';
import { OrderJournal } from '../../../actors/cert/acme/order-journal.js';
import { PostgresDocuments } from '../../../actors/cert/postgres/settings-table.js';
import { openLedgerBudget, readBudgetLedger } from '../../../actors/cert/domains/budget.js';
import { defaultPrefs, readPrefs, writePrefs } from '../../../actors/cert/domains/prefs.js';
import { testRecord, versionedMaterial } from '../../helpers/cert-files.js';
import { ManualClock } from '../../../src/actor/clock.js';
import { loggerFrom } from '../../../src/log/record.js';

const run = promisify(execFile);

async function withStore(work: (server: PostgresServer, connect: () => Postgres) => Promise<void>): Promise<void> {
  const server = await startPostgres();
  const opened: Postgres[] = [];
  try {
    const connect = () => {
      const postgres = new Postgres({ url: server.url, connectTimeoutMs: 2000 });
      opened.push(postgres);
      return postgres;
    };
    await migrate(connect());
    await work(server, connect);
  } finally {
    await Promise.all(opened.map((postgres) => postgres.close().catch(() => {})));
    await server.stop();
  }
}

const key = storeKey(randomBytes(32));

test('a domain written by one node reads back whole on another; pg_dump holds no token and no key', async (t) => {
  await withStore(async (server, connect) => {
    const writer = new PostgresDomainTable(connect(), new SecretBox(key));
    const waiting = { record: testRecord('app'), material: undefined };
    const issued = {
      record: { ...testRecord('api'), status: 'issued' as const, issued_at: '2025-01-01T00:00:00.000Z', expires_at: '2025-03-31T00:00:00.000Z' },
      material: versionedMaterial('v1'),
    };
    const ownKey = { record: { ...testRecord('device'), own_key: true }, material: { ...versionedMaterial('v1'), key_pem: '' } };
    for (const domain of [waiting, issued, ownKey]) await writer.write(domain);
    await writer.write({ ...issued, material: versionedMaterial('v2') });

    const reader = new PostgresDomainTable(connect(), new SecretBox(key));
    const loaded = await reader.loadAll();
    t.deepEqual(loaded.problems, []);
    t.deepEqual([...loaded.domains.keys()], ['api.example.com', 'app.example.com', 'device.example.com']);
    t.deepEqual(loaded.domains.get('app.example.com'), waiting);
    t.deepEqual(loaded.domains.get('api.example.com'), { ...issued, material: versionedMaterial('v2') });
    t.deepEqual(loaded.domains.get('device.example.com'), ownKey);
    const [row] = await connect().query<{ version: string }>("SELECT version FROM domains WHERE name = 'api.example.com'");
    t.is(row?.version, '2', 'each write raises the version');

    const { stdout: dump } = await run(`${postgresBin}/pg_dump`, ['--data-only', server.url], { maxBuffer: 16 * 1024 * 1024 });
    t.true(dump.includes('api.example.com'), 'the dump holds the domains');
    for (const domain of [waiting, issued, ownKey]) t.false(dump.includes(domain.record.token), `${domain.record.name}'s token is sealed`);
    t.false(dump.includes(versionedMaterial('v2').key_pem.split('\n')[1] ?? 'no body'), 'the private key is sealed');
    t.true(dump.includes(versionedMaterial('v2').cert_pem.split('\n')[1] ?? 'no body'), 'the certificate is kept as it is');
  });
});

test('a secret moved to another row, or sealed under a key the node lacks, is named and the domain skipped', async (t) => {
  await withStore(async (_server, connect) => {
    const postgres = connect();
    const table = new PostgresDomainTable(postgres, new SecretBox(key));
    await table.write({ record: testRecord('a'), material: versionedMaterial('v1') });
    await table.write({ record: testRecord('b'), material: versionedMaterial('v1') });
    // b's key, sealed for b, copied into a's row: it opens nowhere but in b's.
    await postgres.query(
      `UPDATE domains SET material = json_build_object('cert_pem', material->>'cert_pem', 'chain_pem', material->>'chain_pem',
         'key_pem', (SELECT material->>'key_pem' FROM domains WHERE name = 'b.example.com')) WHERE name = 'a.example.com'`,
    );
    const loaded = await new PostgresDomainTable(connect(), new SecretBox(key)).loadAll();
    t.deepEqual([...loaded.domains.keys()], ['b.example.com']);
    t.is(loaded.problems.length, 1);
    t.regex(loaded.problems[0] ?? '', /^the stored domain a\.example\.com cannot be read: the stored secret domains\/a\.example\.com\/key does not open/);

    const otherKey = storeKey(randomBytes(32));
    const stranger = await new PostgresDomainTable(connect(), new SecretBox(otherKey)).loadAll();
    t.is(stranger.domains.size, 0);
    t.true(
      stranger.problems.every((problem) => problem.includes(`was sealed with store key ${key.id}, which this node does not have`)),
      stranger.problems.join('\n'),
    );
    // After a rotation the previous key still opens what it sealed.
    const rotated = await new PostgresDomainTable(connect(), new SecretBox(otherKey, [key])).loadAll();
    t.deepEqual([...rotated.domains.keys()], ['b.example.com']);
  });
});

test('a removal is gone for every node; writes to one domain land in call order', async (t) => {
  await withStore(async (_server, connect) => {
    const table = new PostgresDomainTable(connect(), new SecretBox(key));
    const record = testRecord('order');
    const writes = ['v1', 'v2', 'v3', 'v4'].map((version) => table.write({ record, material: versionedMaterial(version) }));
    await Promise.all(writes);
    const other = new PostgresDomainTable(connect(), new SecretBox(key));
    t.deepEqual((await other.loadAll()).domains.get(record.name)?.material, versionedMaterial('v4'));
    await table.remove(record.name);
    await table.remove(record.name);
    t.is((await other.loadAll()).domains.size, 0);
  });
});

test('the documents: prefs and the CA budget read back on another node; a damaged one is named by its row', async (t) => {
  await withStore(async (server, connect) => {
    const documents = new PostgresDocuments(connect(), new SecretBox(key));
    t.deepEqual(await readPrefs(documents), { prefs: defaultPrefs });
    const prefs = { ...defaultPrefs, sort: { key: 'expires' as const, direction: 'desc' as const }, filter: 'app' };
    await writePrefs(documents, prefs);
    const other = new PostgresDocuments(connect(), new SecretBox(key));
    t.deepEqual(await readPrefs(other), { prefs });

    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const lines: string[] = [];
    const log = loggerFrom('budget', (record) => lines.push(record.message));
    const gate = await openLedgerBudget({ certificates: 5, windowMs: 7 * 86_400_000 }, documents, clock, log);
    t.true(gate.reserve('a.example.com', 'new', 0).granted);
    await gate.commit('a.example.com');
    t.deepEqual(await readBudgetLedger(other), { ledger: [clock.now()] });

    // The order journal of an account's folder holds a private key once finalizing starts: sealed.
    const orders = await OrderJournal.open(documents.within('acme/accounts/ca-1'));
    const keyPem = versionedMaterial('journal').key_pem;
    await orders.set('a.example.com', { url: 'https://ca.test/order/1', keyPem });
    t.deepEqual((await OrderJournal.open(other.within('acme/accounts/ca-1'))).get('a.example.com'), { url: 'https://ca.test/order/1', keyPem });
    const { stdout: dump } = await run(`${postgresBin}/pg_dump`, ['--data-only', server.url], { maxBuffer: 16 * 1024 * 1024 });
    t.true(dump.includes('acme/accounts/ca-1/orders.json'));
    t.false(dump.includes(keyPem.split('\n')[1] ?? 'no body'), 'the journal is sealed');

    // A domain's list (its host tokens) is a document of a folder: listed, read back, removed.
    const token = { id: '0123456789abcdef', host: 'web1', sha256: 'a'.repeat(64), created_at: '2026-01-01T00:00:00.000Z', last_used_at: null };
    const tokens = await openHostTokenStore(documents);
    await tokens.store.write('app.example.com', [token]);
    await tokens.store.write('api.example.com', [{ ...token, host: 'web2' }]);
    const reloaded = await openHostTokenStore(other);
    t.deepEqual(reloaded.loaded.problems, []);
    t.deepEqual([...reloaded.loaded.tokens.keys()], ['api.example.com', 'app.example.com']);
    t.deepEqual(reloaded.loaded.tokens.get('app.example.com')?.get(token.id), token);
    await tokens.store.write('app.example.com', []);
    t.deepEqual([...(await openHostTokenStore(other)).loaded.tokens.keys()], ['api.example.com'], 'an empty list is removed');

    await connect().query("UPDATE settings SET value = $1 WHERE key = 'budget.json'", [new SecretBox(key).seal('not json', 'settings/budget.json')]);
    lines.length = 0;
    await openLedgerBudget({ certificates: 5, windowMs: 7 * 86_400_000 }, other, clock, log);
    const where = `settings/budget.json in PostgreSQL at 127.0.0.1:${server.port}/outpost`;
    t.true(
      lines.some((line) => line.startsWith(`${where} is not usable (`) && line.endsWith('counting the CA budget from empty')),
      lines.join('\n'),
    );
  });
});
