// The durable delivery queue (actors/cert/notify/queue.ts) on a fake clock with senders that answer as
// told: the backoff between attempts and its bound, 410 and the give-up bound, a restart that resumes
// every pending delivery with its id and its count, what a crash leaves behind; and the signature.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { ManualClock } from '../../../src/actor/clock.js';
import { loggerFrom, type LogRecord } from '../../../src/log/record.js';
import type { DomainNotice } from '../../../actors/cert/domains/notices.js';
import { DeliveryQueue, defaultQueueSettings, queueDirName, type Delivery, type Outcome, type Sender } from '../../../actors/cert/notify/queue.js';
import { signatureOf, verifySignature } from '../../../actors/cert/notify/signature.js';
import { outcomeOfStatus } from '../../../actors/cert/notify/channels.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { eventually } from '../../helpers/fixture-host.js';
import { FileDocuments } from '../../../actors/cert/store/documents.js';

const start = Date.UTC(2026, 0, 1);
const second = 1000;
const hour = 3_600_000;

const notice: DomainNotice = {
  event: 'renewal_failed',
  domain: 'app.example.com',
  reason: 'the CA is down',
  attempt: 1,
  next_attempt_at: null,
  expires_at: null,
  ca: null,
  host: null,
  at: new Date(start).toISOString(),
};

/** A sender answering from `answers` in turn (the last one for ever after), recording each attempt and its instant. */
function scriptedSender(clock: ManualClock, answers: Outcome[], name = 'hook'): Sender & { attempts: { id: string; at: number }[] } {
  const attempts: { id: string; at: number }[] = [];
  return {
    name,
    where: 'http://127.0.0.1:9',
    attempts,
    send(delivery: Delivery) {
      attempts.push({ id: delivery.id, at: clock.now() });
      return Promise.resolve(answers[Math.min(attempts.length - 1, answers.length - 1)] ?? { type: 'delivered' });
    },
  };
}

async function openQueue(dataDir: string, clock: ManualClock, sender: Sender, logged: LogRecord[] = []) {
  return DeliveryQueue.open(new FileDocuments(dataDir), {
    clock,
    log: loggerFrom('domains', (record) => logged.push(record)),
    senders: [sender],
    // No jitter: the delays are exact.
    random: () => 0,
  });
}

const retry: Outcome = { type: 'retry', reason: 'HTTP 503' };
const settled = (check: () => boolean) => eventually(() => Promise.resolve(check()), 5_000, 5);

/** Moves the clock to each pending delivery's next attempt until `attempts` were made. */
async function driveTo(clock: ManualClock, queue: DeliveryQueue, sender: { attempts: unknown[] }, attempts: number): Promise<void> {
  while (sender.attempts.length < attempts) {
    const before = sender.attempts.length;
    const next = queue.pending()[0];
    if (next === undefined) return;
    clock.advance(Math.max(0, Date.parse(next.next_attempt_at) - clock.now()));
    await settled(() => sender.attempts.length > before && (queue.pending().length === 0 || queue.pending()[0]?.attempts === before + 1));
  }
}

test('a failed delivery is retried at 30 s, 60 s, 120 s ... up to an hour apart, and dropped once 24 hours have passed', async (t) => {
  const clock = new ManualClock(start);
  const sender = scriptedSender(clock, [retry]);
  const logged: LogRecord[] = [];
  const queue = await openQueue(await certDataDir(t), clock, sender, logged);
  t.teardown(() => queue.stop());
  queue.start();
  await queue.enqueue(['hook'], notice);
  t.true(await settled(() => sender.attempts.length === 1 && queue.pending()[0]?.attempts === 1), 'the first attempt is made at once');
  await driveTo(clock, queue, sender, 60);
  const gaps = sender.attempts.slice(1).map((attempt, index) => (attempt.at - (sender.attempts[index]?.at ?? 0)) / second);
  t.deepEqual(gaps.slice(0, 9), [30, 60, 120, 240, 480, 960, 1920, 3600, 3600]);
  t.true(
    sender.attempts.every((attempt) => attempt.id === sender.attempts[0]?.id),
    'every attempt carries the same id',
  );
  const last = sender.attempts.at(-1)?.at ?? 0;
  t.true(last <= start + defaultQueueSettings.giveUpAfterMs && last > start + defaultQueueSettings.giveUpAfterMs - hour);
  t.true(await settled(() => queue.pending().length === 0), 'given up');
  // The warning follows the file's removal, which the pending list does not wait for.
  t.true(await settled(() => logged.some((record) => record.level === 'warn' && /failed \d+ times since .*\(last: HTTP 503\); given up/.test(record.message))));
});

test('jitter takes up to a fifth off a delay; a Retry-After longer than the backoff is followed', async (t) => {
  const clock = new ManualClock(start);
  const sender = scriptedSender(clock, [{ type: 'retry', reason: 'HTTP 429', retryAfterMs: 600 * second }, retry]);
  const queue = await DeliveryQueue.open(new FileDocuments(await certDataDir(t)), {
    clock,
    log: loggerFrom('domains', () => {}),
    senders: [sender],
    random: () => 1,
  });
  t.teardown(() => queue.stop());
  queue.start();
  await queue.enqueue(['hook'], notice);
  t.true(await settled(() => queue.pending()[0]?.attempts === 1));
  t.is(Date.parse(queue.pending()[0]?.next_attempt_at ?? ''), start + 600 * second, "the receiver's Retry-After");
  clock.advance(600 * second);
  t.true(await settled(() => queue.pending()[0]?.attempts === 2));
  t.is(Date.parse(queue.pending()[0]?.next_attempt_at ?? '') - clock.now(), 48 * second, '60 s less a fifth');
  t.like(outcomeOfStatus(503, '120', start), { type: 'retry', retryAfterMs: 120 * second });
  t.like(outcomeOfStatus(410, null, start), { type: 'gone' });
  t.like(outcomeOfStatus(204, null, start), { type: 'delivered' });
  t.like(outcomeOfStatus(301, null, start), { type: 'retry', reason: 'HTTP 301' });
});

test('410 gives a delivery up at once; 2xx removes its file', async (t) => {
  const clock = new ManualClock(start);
  const dataDir = await certDataDir(t);
  const sender = scriptedSender(clock, [{ type: 'gone', reason: 'HTTP 410' }, { type: 'delivered' }]);
  const queue = await openQueue(dataDir, clock, sender);
  t.teardown(() => queue.stop());
  queue.start();
  await queue.enqueue(['hook'], notice);
  t.true(await settled(() => sender.attempts.length === 1 && queue.pending().length === 0));
  await queue.enqueue(['hook'], notice);
  t.true(await settled(() => sender.attempts.length === 2 && queue.pending().length === 0));
  // The file goes after the delivery leaves the pending list: its removal (and the folder's fsync) follows.
  t.true(await eventually(async () => (await readdir(join(dataDir, queueDirName))).length === 0, 5_000, 5), 'no file left');
});

test('a restart resumes every pending delivery with its id, its count and its next attempt', async (t) => {
  const clock = new ManualClock(start);
  const dataDir = await certDataDir(t);
  const first = scriptedSender(clock, [retry]);
  const before = await openQueue(dataDir, clock, first);
  before.start();
  await before.enqueue(['hook'], notice);
  t.true(await settled(() => before.pending()[0]?.attempts === 1));
  const pending = before.pending()[0];
  await before.stop();

  // What a crash in the middle of a write leaves: a temporary file beside the delivery's.
  const dir = join(dataDir, queueDirName);
  await writeFile(join(dir, `.${pending?.id ?? ''}.json.0123456789ab.tmp`), '{"id": "half a wr');
  await writeFile(join(dir, 'not-a-delivery.json'), '{}');
  const logged: LogRecord[] = [];
  const resumed = scriptedSender(clock, [{ type: 'delivered' }]);
  const after = await openQueue(dataDir, clock, resumed, logged);
  t.teardown(() => after.stop());
  t.deepEqual(after.pending(), [pending as Delivery], 'the same delivery, read back');
  t.false(
    (await readdir(dir)).some((file) => file.endsWith('.tmp')),
    'the cut-short write is removed',
  );
  t.true(logged.some((record) => record.message.includes('not-a-delivery.json is no delivery')));
  after.start();
  clock.advance(29 * 1000);
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.is(resumed.attempts.length, 0, 'not before its next attempt');
  clock.advance(1000);
  t.true(await settled(() => resumed.attempts.length === 1 && after.pending().length === 0));
  t.is(resumed.attempts[0]?.id, pending?.id);
});

test("a delivery to a channel no longer in the config is dropped at the start, saying so; each file is its owner's alone", async (t) => {
  const clock = new ManualClock(start);
  const dataDir = await certDataDir(t);
  const first = scriptedSender(clock, [retry], 'old');
  const before = await openQueue(dataDir, clock, first);
  before.start();
  await before.enqueue(['old'], notice);
  t.true(await settled(() => before.pending()[0]?.attempts === 1));
  await before.stop();
  const dir = join(dataDir, queueDirName);
  const [file] = await readdir(dir);
  t.is((await stat(join(dir, file ?? ''))).mode & 0o777, 0o600);
  t.like(JSON.parse(await readFile(join(dir, file ?? ''), 'utf8')), { channel: 'old', attempts: 1, last_error: 'HTTP 503' });
  const logged: LogRecord[] = [];
  const after = await openQueue(dataDir, clock, scriptedSender(clock, [], 'new'), logged);
  await after.stop();
  t.deepEqual(after.pending(), []);
  t.true(logged.some((record) => record.message.includes('dropped: no channel old in notify.channels')));
});

test('the signature is HMAC-SHA256 over the timestamp and the body, refused when the body, the secret or the time differ', (t) => {
  const body = JSON.stringify(notice);
  const header = signatureOf('s3cret', 1_767_225_600, body);
  t.regex(header, /^t=1767225600,v1=[0-9a-f]{64}$/);
  t.true(verifySignature('s3cret', header, body, 1_767_225_600 + 60));
  t.false(verifySignature('s3cret', header, `${body} `, 1_767_225_600));
  t.false(verifySignature('other', header, body, 1_767_225_600));
  t.false(verifySignature('s3cret', header, body, 1_767_225_600 + 301), 'too old: a replay');
  t.false(verifySignature('s3cret', 't=1767225600,v1=zz', body, 1_767_225_600));
});
