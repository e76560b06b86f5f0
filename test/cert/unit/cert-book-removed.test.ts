// A domain removed while the book awaited something for it stays removed: no write
// after the removal brings its file (and its token) back for the next restart. A refused record change
// leaves an issued domain issued, as the lifecycle table of docs/certhub.md says.
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import { nextStatus } from '../../../actors/cert/domains/lifecycle.js';
import { DomainStore } from '../../../actors/cert/domains/store.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { day, startBook, type BookHarness } from '../helpers/domain-book.js';

const start = Date.UTC(2026, 0, 1);

test('a domain removed while its expiry notice goes out is not written back: its file stays gone', async (t) => {
  const clock = new ManualClock(start);
  const dataDir = await certDataDir(t);
  let removal: Promise<void> | undefined;
  // The operator removes the domain the moment the notice is sent, while the book goes on with the
  // notice's own record change.
  const harness: BookHarness = await startBook(t, {
    dataDir,
    clock,
    lifetimeMs: 90 * day,
    notify: (notice) => {
      if (notice.event === 'expires_soon') removal = harness.book.remove(notice.domain);
    },
  });
  // The CA's renewal window lies past expiry, so the expiry notice is the domain's next timed step.
  harness.issuer.renewalWindow = () => ({
    ok: true,
    window: { start: start + 91 * day, end: start + 92 * day },
    explanationUrl: undefined,
    nextCheckAt: start + 365 * day,
  });
  await harness.book.add({ name: 'app', target: '203.0.113.5' });
  await harness.until('app', (view) => view.status === 'issued' && view.renewal.basis === 'ari');
  clock.advance(85 * day);
  t.not(removal, undefined, 'the notice was sent and the domain removed');
  await removal;
  await harness.book.stop();
  const file = join(dataDir, 'domains', 'app.example.com.json');
  await t.throwsAsync(access(file), { code: 'ENOENT' }, 'the file is gone');
  const { loaded } = await DomainStore.open(dataDir);
  t.false(loaded.domains.has('app.example.com'), 'a restart does not bring it back');
});

test('a refused record change leaves an issued domain issued, as the lifecycle table says', async (t) => {
  const clock = new ManualClock(start);
  const harness = await startBook(t, { dataDir: await certDataDir(t), clock, lifetimeMs: 90 * day });
  await harness.book.add({ name: 'app', target: '203.0.113.5' });
  await harness.until('app', (view) => view.status === 'issued');
  const refused = new Promise<void>((resolve) => {
    harness.issuer.publishRecord = () => {
      resolve();
      return Promise.reject(new Error('the DNS provider refused the change'));
    };
  });
  const changed = await harness.book.setTarget('app', '203.0.113.9');
  await refused;
  await new Promise((resolve) => setImmediate(resolve));
  t.like(changed, { status: 'issued', target: '203.0.113.9' });
  t.is(harness.replica.get('app.example.com')?.domain.status, 'issued');
  t.like((await harness.storedRecord('app')).published, { target: '203.0.113.5' }, 'what DNS holds is still the old target, to be written again');
  t.throws(() => nextStatus('issued', 'failed'), { message: /cannot take the event "failed"/ }, 'the table has no issued -> error on a record change');
});
