// Daily digests (actors/cert/notify/digest.ts) on an injected clock: a digest channel's notices are
// held, on disk, until digest_at (UTC), then queued as one digest; a day without a notice sends none;
// a digest time passed while certhub was stopped sends the digest at the next start, and one not yet
// passed waits for its time.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import type { DomainNotice } from '../../../actors/cert/domains/notices.js';
import { DigestBook, digestDirName, nextDigestAt } from '../../../actors/cert/notify/digest.js';
import type { Notice } from '../../../actors/cert/notify/protocol.js';
import { notifySchema } from '../../../actors/cert/notify/schema.js';
import { notifySettings } from '../../../actors/cert/notify/settings.js';
import { FileDocuments } from '../../../actors/cert/store/documents.js';

const log = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const at = (iso: string) => Date.parse(iso);

const notice = (domain: string, clock: ManualClock): DomainNotice => ({
  event: 'renewal_failed',
  domain,
  reason: 'acme: the CA is down',
  attempt: 1,
  next_attempt_at: null,
  expires_at: null,
  ca: null,
  host: null,
  at: new Date(clock.now()).toISOString(),
});

async function open(dataDir: string, clock: ManualClock, sent: { channel: string; digest: Notice }[]) {
  return DigestBook.open(new FileDocuments(dataDir), {
    clock,
    log,
    channels: new Map([['daily', 8 * 60]]),
    enqueue: (channel, digest) => {
      sent.push({ channel, digest });
      return Promise.resolve();
    },
  });
}

/** Waits for the book's writes and digests queued so far (a timer the clock fired queues its digest at once). */
const settle = (book: DigestBook) => book.idle();

test('the next digest time is the next instant at that minute, UTC', (t) => {
  t.is(nextDigestAt(at('2029-01-01T07:59:59.000Z'), 8 * 60), at('2029-01-01T08:00:00.000Z'));
  t.is(nextDigestAt(at('2029-01-01T08:00:00.000Z'), 8 * 60), at('2029-01-02T08:00:00.000Z'));
  t.is(nextDigestAt(at('2029-01-01T23:30:00.000Z'), 0), at('2029-01-02T00:00:00.000Z'));
});

test('digest_at is HH:MM, made minutes after midnight', async (t) => {
  const settings = await notifySettings(
    notifySchema.parse({
      channels: [
        { type: 'slack', url: 'https://hooks.example.net/a', digest_at: '07:30' },
        { type: 'discord', url: 'https://d.example.net/b' },
      ],
    }),
    {},
  );
  t.is(settings?.channels[0]?.digestAtMinute, 7 * 60 + 30);
  t.is(settings?.channels[1]?.digestAtMinute, undefined, 'each notice as it comes');
  t.false(notifySchema.safeParse({ channels: [{ type: 'slack', url: 'https://hooks.example.net/a', digest_at: '24:00' }] }).success);
  t.false(notifySchema.safeParse({ channels: [{ type: 'slack', url: 'https://hooks.example.net/a', digest_at: '8:00' }] }).success);
});

test("a digest channel's notices are held until digest_at and sent as one digest; a quiet day sends none", async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'cert-digest-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const clock = new ManualClock(at('2029-01-01T07:00:00.000Z'));
  const sent: { channel: string; digest: Notice }[] = [];
  const book = await open(dataDir, clock, sent);
  book.start();
  book.add('daily', notice('a.example.test', clock));
  clock.advance(30 * 60_000);
  book.add('daily', notice('b.example.test', clock));
  book.add('other', notice('c.example.test', clock));
  await settle(book);
  t.deepEqual(await readdir(join(dataDir, digestDirName)), ['daily.json'], 'held on disk');
  clock.advance(29 * 60_000);
  await settle(book);
  t.deepEqual(sent, [], 'not before 08:00');
  clock.advance(60_000);
  await settle(book);
  t.is(sent.length, 1);
  const [first] = sent;
  t.is(first?.channel, 'daily');
  t.like(first?.digest, { event: 'digest', from: '2029-01-01T07:00:00.000Z', at: '2029-01-01T08:00:00.000Z' });
  t.deepEqual(first?.digest.event === 'digest' ? first.digest.notices.map((each) => each.domain) : [], ['a.example.test', 'b.example.test']);
  t.deepEqual(await readdir(join(dataDir, digestDirName)), [], 'cleared once queued');
  clock.advance(86_400_000);
  await settle(book);
  t.is(sent.length, 1, 'a day without a notice sends nothing');
  await book.stop();
});

test('a digest time passed while certhub was stopped sends the digest at the next start; one not yet passed waits', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'cert-digest-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const clock = new ManualClock(at('2029-01-01T09:00:00.000Z'));
  const sent: { channel: string; digest: Notice }[] = [];
  const before = await open(dataDir, clock, sent);
  before.start();
  before.add('daily', notice('a.example.test', clock));
  await before.stop();

  clock.advance(12 * 3_600_000);
  const early = await open(dataDir, clock, sent);
  early.start();
  await settle(early);
  t.deepEqual(sent, [], '21:00: the next digest time (08:00) has not come');
  t.is(early.pending('daily').length, 1, 'the held notice is read back');
  await early.stop();

  clock.advance(12 * 3_600_000);
  const late = await open(dataDir, clock, sent);
  late.start();
  await settle(late);
  t.is(sent.length, 1, '09:00 the next day: 08:00 passed while stopped, sent at the start');
  t.like(sent[0]?.digest, { event: 'digest', at: '2029-01-02T09:00:00.000Z' });
  await late.stop();
});
