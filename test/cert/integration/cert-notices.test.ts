// notify.webhook_url: the domains actor's book, on a fake clock, tells a real HTTP receiver (through
// the delivery queue) of failed issuances and renewals and, once per certificate, of one that expires
// within 7 days unrenewed. The log names the webhook by its origin only (its path is often a secret).
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import test, { type ExecutionContext } from 'ava';
import type { DomainNotice } from '../../../actors/cert/domains/notices.js';
import { openNotifier } from '../../../actors/cert/notify/notifier.js';
import { webhookUrlEvents } from '../../../actors/cert/notify/schema.js';
import { ManualClock } from '../../../src/actor/clock.js';
import { loggerFrom, type LogRecord } from '../../../src/log/record.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { day, startBook } from '../helpers/domain-book.js';
import { eventually } from '../../helpers/fixture-host.js';
import { FileDocuments } from '../../../actors/cert/store/documents.js';

const secretPath = '/hooks/T0KEN-secret-part';

interface Receiver {
  url: string;
  notices: DomainNotice[];
  /** The status the receiver answers with. */
  status: number;
}

async function startReceiver(t: ExecutionContext): Promise<Receiver> {
  const receiver: Receiver = { url: '', notices: [], status: 204 };
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'POST' && request.url === secretPath && request.headers['content-type'] === 'application/json') {
        receiver.notices.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as DomainNotice);
      }
      response.writeHead(receiver.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${secretPath}`;
  return receiver;
}

/** A book (90-day certificates, fake clock) whose notices go to a receiver answering `status`; its log kept. */
async function bookWithWebhook(t: ExecutionContext, status: number) {
  const receiver = await startReceiver(t);
  receiver.status = status;
  const logged: LogRecord[] = [];
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const dataDir = await certDataDir(t);
  const { notify, queue } = await openNotifier(
    new FileDocuments(dataDir),
    { channels: [{ type: 'webhook', name: 'webhook_url', events: webhookUrlEvents, url: receiver.url }], retryBaseMs: 30_000, giveUpAfterMs: day },
    { clock, log: loggerFrom('domains', (record) => logged.push(record)) },
  );
  queue.start();
  t.teardown(() => queue.stop());
  const harness = await startBook(t, { dataDir, clock, lifetimeMs: 90 * day, notify });
  return { receiver, logged, clock, harness };
}

const settled = (check: () => boolean) => eventually(() => Promise.resolve(check()), 10_000, 10);

test('failed renewals are posted, and the expiry notice is posted once when the certificate gets within 7 days', async (t) => {
  const { receiver, logged, clock, harness } = await bookWithWebhook(t, 204);
  harness.issuer.failures.push('the CA refused: rate limited');
  await harness.book.add({ name: 'app', target: '203.0.113.5' });
  const failed = await harness.until('app', (view) => view.status === 'error');
  t.true(await settled(() => receiver.notices.length === 1), 'the failed issuance is posted');
  t.like(receiver.notices[0], {
    event: 'issuance_failed',
    domain: 'app.example.com',
    reason: 'the CA refused: rate limited',
    attempt: 1,
    next_attempt_at: failed.next_attempt_at,
    expires_at: null,
  });

  clock.advance(Date.parse(failed.next_attempt_at ?? '') - clock.now());
  const issued = await harness.until('app', (view) => view.status === 'issued');
  const expiresAt = Date.parse(issued.expires_at ?? '');
  // Every renewal from now on fails.
  harness.issuer.failures.push(...Array.from({ length: 100 }, () => 'the CA is down'));
  const dueAt = Date.parse((await harness.storedRecord('app')).renewal.due_at ?? '');
  clock.advance(dueAt - clock.now());
  await harness.until('app', (view) => view.status === 'error');
  t.true(await settled(() => receiver.notices.some((notice) => notice.event === 'renewal_failed')), 'the failed renewal is posted');
  t.like(
    receiver.notices.find((notice) => notice.event === 'renewal_failed'),
    { domain: 'app.example.com', reason: 'the CA is down', expires_at: issued.expires_at },
  );
  t.false(
    receiver.notices.some((notice) => notice.event === 'expires_soon'),
    'not yet within 7 days',
  );

  // The clock jumps: retries on the way start orders that end (failed) once it has arrived.
  const noticeAt = expiresAt - 7 * day;
  clock.advance(noticeAt - clock.now());
  await harness.until('app', (view) => view.status === 'error' && Date.parse(view.next_attempt_at ?? '') > noticeAt);
  clock.advance(0);
  t.true(await settled(() => receiver.notices.some((notice) => notice.event === 'expires_soon')), 'the expiry notice is posted');
  t.like(
    receiver.notices.find((notice) => notice.event === 'expires_soon'),
    { domain: 'app.example.com', expires_at: issued.expires_at, reason: null },
  );
  clock.advance(2 * day);
  await harness.until('app', (view) => view.status === 'error');
  t.is(receiver.notices.filter((notice) => notice.event === 'expires_soon').length, 1, 'once per certificate');
  t.false(
    logged.some((record) => record.message.includes(secretPath)),
    'the webhook path never reaches the log',
  );
});

test('a webhook that refuses is logged by its origin, and the domain goes on', async (t) => {
  const { receiver, logged, clock, harness } = await bookWithWebhook(t, 500);
  harness.issuer.failures.push('the CA is down');
  await harness.book.add({ name: 'app', target: '203.0.113.5' });
  const failed = await harness.until('app', (view) => view.status === 'error');
  const origin = new URL(receiver.url).origin;
  t.true(
    await settled(() =>
      logged.some(
        (record) =>
          record.level === 'warn' &&
          record.message.startsWith(`notify: the issuance_failed delivery of app.example.com to webhook_url (${origin}) failed (attempt 1: HTTP 500)`),
      ),
    ),
  );
  t.false(logged.some((record) => record.message.includes(secretPath)));
  clock.advance(Date.parse(failed.next_attempt_at ?? '') - clock.now());
  t.is((await harness.until('app', (view) => view.status === 'issued')).status, 'issued');
});
