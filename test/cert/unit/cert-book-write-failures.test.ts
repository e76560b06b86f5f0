// A certificate the CA issued while the domain's file cannot be written (the data volume gone, the
// disk full) stays issued: the order does not fail (an issued domain cannot take the event "failed";
// before, the book tried and logged "the order of … failed unexpectedly"), the error names the write,
// the renewal is planned, and the domain's next change writes the issued record with its material.
import { readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import test, { type ExecutionContext } from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { day, startBook } from '../helpers/domain-book.js';

const now = Date.parse('2025-01-01T00:00:00Z');

/** The rejections nobody handles while the test runs (each would end the domains actor's thread). */
function unhandledRejections(t: ExecutionContext): unknown[] {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  t.teardown(() => process.off('unhandledRejection', onUnhandled));
  return unhandled;
}

test('issued while its file cannot be written: stays issued, the error names the write, the next change writes it', async (t) => {
  const dataDir = await certDataDir(t);
  const harness = await startBook(t, { dataDir, clock: new ManualClock(now), lifetimeMs: 90 * day, scheduled: false });
  const { book, issuer, logged } = harness;
  issuer.hold();
  await book.add({ name: 'app', target: '192.0.2.1' });
  await harness.until('app', (view) => view.status === 'issuing');

  // Every write of a domain's file fails from here: its directory is gone.
  const domainsDir = join(dataDir, 'domains');
  await rename(domainsDir, `${domainsDir}-away`);
  issuer.resume();
  // Until the order's end is logged, issued or failed. No deadline of its own (the unit groups run
  // at nice 19): ava's timeout bounds the wait.
  while (!logged.some((line) => /issued app\.example\.com|failed/.test(line))) await setTimeout(20);
  t.regex(
    logged.find((line) => line.startsWith('error: issued app.example.com, but')) ?? '',
    /^error: issued app\.example\.com, but its file could not be written \(.*ENOENT.*\); it is kept in memory/,
  );
  t.deepEqual(
    logged.filter((line) => /cannot take the event|failed unexpectedly|issuing app\.example\.com failed/.test(line)),
    [],
  );
  const view = book.list().find((domain) => domain.name === 'app.example.com');
  t.is(view?.status, 'issued');
  t.not(view?.renewal.due_at ?? null, null, 'the renewal is planned');

  // The directory is back: the next change writes the issued record with its material.
  await rename(`${domainsDir}-away`, domainsDir);
  await book.setTarget('app', '192.0.2.2');
  const stored = await harness.storedRecord('app');
  t.like(stored, { status: 'issued', target: '192.0.2.2' });
  const file = JSON.parse(await readFile(join(domainsDir, 'app.example.com.json'), 'utf8')) as { material: { cert_pem: string } | null };
  t.regex(file.material?.cert_pem ?? '', /^-----BEGIN CERTIFICATE-----/);
});

// The write after a target change's republish is awaited: left to its promise, a failure would be an
// unhandled rejection, which ends the domains actor's thread.
test('the record republished for a target change while the file cannot be written: the error names the write, nothing is left unhandled', async (t) => {
  const dataDir = await certDataDir(t);
  const harness = await startBook(t, { dataDir, clock: new ManualClock(now), lifetimeMs: 90 * day, scheduled: false });
  const { book, issuer, logged } = harness;
  const unhandled = unhandledRejections(t);
  await book.add({ name: 'app', target: '192.0.2.1' });
  await harness.until('app', (view) => view.status === 'issued');
  let publish: (() => void) | undefined;
  issuer.publishRecord = () => new Promise<void>((resolve) => (publish = resolve));

  // The target change itself is written; the republish that follows waits on the provider.
  await book.setTarget('app', '192.0.2.2');
  t.like(await harness.storedRecord('app'), { target: '192.0.2.2' });
  const domainsDir = join(dataDir, 'domains');
  await rename(domainsDir, `${domainsDir}-away`);
  if (publish === undefined) throw new Error('the target change did not republish the record');
  publish();
  // No deadline of its own (the unit groups run at nice 19): ava's timeout bounds the wait.
  while (unhandled.length === 0 && !logged.some((line) => line.includes('the record of app.example.com points to'))) await setTimeout(20);
  t.deepEqual(unhandled, []);
  t.regex(
    logged.find((line) => line.includes('the record of app.example.com points to')) ?? '',
    /^error: the record of app\.example\.com points to 192\.0\.2\.2, but the domain's file could not be written \(.*ENOENT.*\); it is written with the domain's next change$/,
  );
  await rename(`${domainsDir}-away`, domainsDir);
  await book.rotate('app');
  t.like(await harness.storedRecord('app'), { target: '192.0.2.2', published: { target: '192.0.2.2', record_type: 'A' } });
});

// The flush of fetch times, armed by a fetch on the book's clock, handles a write failure the same way.
test('fetch times that cannot be written: the error is logged, nothing is left unhandled, the next flush writes them', async (t) => {
  const dataDir = await certDataDir(t);
  const clock = new ManualClock(now);
  const harness = await startBook(t, { dataDir, clock, lifetimeMs: 90 * day, scheduled: false });
  const { book, logged } = harness;
  const unhandled = unhandledRejections(t);
  await book.add({ name: 'app', target: '192.0.2.1' });
  await harness.until('app', (view) => view.status === 'issued');

  const domainsDir = join(dataDir, 'domains');
  await rename(domainsDir, `${domainsDir}-away`);
  book.recordFetch('app.example.com', '198.51.100.7', clock.now());
  clock.advance(5000);
  // No deadline of its own (the unit groups run at nice 19): ava's timeout bounds the wait.
  while (unhandled.length === 0 && !logged.some((line) => line.includes('the last fetch times could not be written'))) await setTimeout(20);
  t.deepEqual(unhandled, []);
  t.regex(
    logged.find((line) => line.includes('the last fetch times could not be written')) ?? '',
    /^error: the last fetch times could not be written, tried again in 5 s: app\.example\.com: .*ENOENT/,
  );

  // The directory is back: the next flush, 5 s on, writes the fetch.
  await rename(`${domainsDir}-away`, domainsDir);
  const published = harness.nextPublished('app', (view) => view.last_fetch?.from === '198.51.100.7');
  clock.advance(5000);
  await published;
  t.like(await harness.storedRecord('app'), { last_fetch: { at: new Date(now).toISOString(), from: '198.51.100.7' } });
});
