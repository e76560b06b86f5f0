// Notices delivered to real receivers on 127.0.0.1 through the durable queue (actors/cert/notify/):
// a signed webhook that fails its first three deliveries, with the queue stopped and opened again on
// the same data folder in between, takes the notice once; ntfy, Slack and Discord receive their own
// shapes; an SMTP server (smtp-server) receives the mail, logged in with a password from a 0600 file;
// a channel with digest_at receives one signed digest at its time (an injected clock) while another
// receives each notice at once.
import { writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { SMTPServer } from 'smtp-server';
import { ManualClock, systemClock } from '../../../src/actor/clock.js';
import { nextDigestAt } from '../../../actors/cert/notify/digest.js';
import type { DigestNotice } from '../../../actors/cert/notify/protocol.js';
import { loggerFrom, type LogRecord } from '../../../src/log/record.js';
import type { DomainNotice } from '../../../actors/cert/domains/notices.js';
import { openNotifier } from '../../../actors/cert/notify/notifier.js';
import type { NotifySettings } from '../../../actors/cert/notify/protocol.js';
import { notifySettings } from '../../../actors/cert/notify/settings.js';
import { notifySchema } from '../../../actors/cert/notify/schema.js';
import { verifySignature } from '../../../actors/cert/notify/signature.js';
import { certDataDir } from '../../helpers/cert-files.js';
import { eventually } from '../../helpers/fixture-host.js';
import { FileDocuments } from '../../../actors/cert/store/documents.js';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The status answered. */
  status: number;
}

/** An HTTP receiver answering 503 to its first `failFirst` requests, then 200. */
async function startReceiver(t: ExecutionContext, failFirst = 0) {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const status = received.length < failFirst ? 503 : 200;
      received.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), status });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { received, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const notice: DomainNotice = {
  event: 'renewal_failed',
  domain: 'app.example.com',
  reason: 'acme: the CA is down @everyone',
  attempt: 2,
  next_attempt_at: '2026-03-25T00:04:07.303Z',
  expires_at: '2026-04-01T00:00:47.000Z',
  ca: null,
  host: null,
  at: '2026-03-25T00:00:47.000Z',
};

const settled = (check: () => boolean, timeoutMs = 15_000) => eventually(() => Promise.resolve(check()), timeoutMs, 10);

/** The settings certhub makes of a `notify` section, with a short first retry for the test. */
async function settingsOf(section: unknown, env: NodeJS.ProcessEnv = {}): Promise<NotifySettings> {
  const settings = await notifySettings(notifySchema.parse(section), env);
  if (settings === undefined) throw new Error('no channel');
  return { ...settings, retryBaseMs: 100 };
}

test('a signed webhook failing its first three deliveries takes the notice once, across a restart, with a valid signature', async (t) => {
  const { received, base } = await startReceiver(t, 3);
  const dataDir = await certDataDir(t);
  const secretFile = join(dataDir, 'webhook-secret');
  await writeFile(secretFile, 'whsec-0123456789abcdef\n', { mode: 0o600 });
  const settings = await settingsOf({ channels: [{ type: 'webhook', name: 'ops', url: `${base}/hooks/T0KEN`, secret_file: secretFile }] });
  const logged: LogRecord[] = [];
  const deps = { clock: systemClock, log: loggerFrom('domains', (record) => logged.push(record)) };

  const first = await openNotifier(new FileDocuments(dataDir), settings, deps);
  first.queue.start();
  first.notify(notice);
  t.true(await settled(() => received.length === 2 && first.queue.pending()[0]?.attempts === 2), 'two attempts refused');
  await first.queue.stop();

  const second = await openNotifier(new FileDocuments(dataDir), settings, deps);
  t.teardown(() => second.queue.stop());
  t.is(second.queue.pending().length, 1, 'the pending delivery is read back');
  second.queue.start();
  t.true(await settled(() => received.some((request) => request.status === 200) && second.queue.pending().length === 0));
  await new Promise((resolve) => setTimeout(resolve, 500));

  const taken = received.filter((request) => request.status === 200);
  t.is(taken.length, 1, 'taken once');
  t.is(received.length, 4, 'three refusals, then the delivery');
  const ids = new Set(received.map((request) => request.headers['x-certhub-delivery']));
  t.is(ids.size, 1, 'every attempt carries the same delivery id');
  const [delivered] = taken;
  if (delivered === undefined) return;
  t.regex(String(delivered.headers['x-certhub-delivery']), /^[0-9a-f-]{36}$/);
  t.is(delivered.headers['x-certhub-event'], 'renewal_failed');
  t.is(delivered.headers['content-type'], 'application/json');
  t.deepEqual(JSON.parse(delivered.body), notice);
  t.true(verifySignature('whsec-0123456789abcdef', String(delivered.headers['x-certhub-signature']), delivered.body, Math.floor(Date.now() / 1000)));
  t.false(verifySignature('another-secret', String(delivered.headers['x-certhub-signature']), delivered.body, Math.floor(Date.now() / 1000)));
  const log = logged.map((record) => record.message).join('\n');
  t.false(log.includes('T0KEN'), 'the path is not logged');
  t.false(log.includes('whsec'), 'the secret is not logged');
  t.regex(log, /renewal_failed delivery of app\.example\.com to ops \(http:\/\/127\.0\.0\.1:\d+\) failed \(attempt 2: HTTP 503\)/);
});

test('ntfy, Slack and Discord receive their own shapes, for the events they subscribe to', async (t) => {
  const { received, base } = await startReceiver(t);
  const settings = await settingsOf(
    {
      channels: [
        { type: 'ntfy', url: `${base}/ntfy/certhub`, token_env: 'NTFY_TOKEN' },
        { type: 'slack', url: `${base}/slack` },
        { type: 'discord', url: `${base}/discord`, events: ['issued'] },
      ],
    },
    { NTFY_TOKEN: 'tk_ntfy' },
  );
  const notifier = await openNotifier(new FileDocuments(await certDataDir(t)), settings, { clock: systemClock, log: loggerFrom('domains', () => {}) });
  t.teardown(() => notifier.queue.stop());
  notifier.queue.start();
  notifier.notify(notice);
  t.true(await settled(() => received.length === 2 && notifier.queue.pending().length === 0));
  const ntfy = received.find((request) => request.path === '/ntfy/certhub');
  t.like(ntfy?.headers, {
    title: 'certhub: Renewal failed: app.example.com',
    priority: '4',
    tags: 'warning,certhub',
    authorization: 'Bearer tk_ntfy',
  });
  t.is(
    ntfy?.body,
    'acme: the CA is down @everyone\nAttempt 2, the next at 2026-03-25T00:04:07.303Z\nThe certificate served expires at 2026-04-01T00:00:47.000Z',
  );
  const slack = JSON.parse(received.find((request) => request.path === '/slack')?.body ?? '{}') as { text: string; blocks: unknown[] };
  t.true(slack.text.startsWith('*certhub: Renewal failed: app.example.com*\nacme: the CA is down'));
  t.deepEqual(slack.blocks, [{ type: 'section', text: { type: 'mrkdwn', text: slack.text } }]);
  t.false(
    received.some((request) => request.path === '/discord'),
    'Discord subscribes to issued only',
  );

  notifier.notify({ ...notice, event: 'issued', reason: null, attempt: null, next_attempt_at: null, ca: 'https://acme.example/directory' });
  t.true(await settled(() => received.some((request) => request.path === '/discord')));
  const discord = JSON.parse(received.find((request) => request.path === '/discord')?.body ?? '{}') as object;
  t.deepEqual(discord, {
    content:
      '**certhub: Certificate issued: app.example.com**\nThe certificate served expires at 2026-04-01T00:00:47.000Z\nIssued by https://acme.example/directory',
    allowed_mentions: { parse: [] },
  });
});

test('e-mail reaches an SMTP server, logged in with the password of a 0600 file', async (t) => {
  const mails: { from: string; to: string[]; data: string; user: string }[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth(auth, _session, callback) {
      if (auth.username === 'certhub' && auth.password === 'smtp-pass-1234') callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((address) => address.address),
          data: Buffer.concat(chunks).toString('utf8'),
          user: String(session.user),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.server.address() as AddressInfo).port;
  const dataDir = await certDataDir(t);
  const passwordFile = join(dataDir, 'smtp-password');
  await writeFile(passwordFile, 'smtp-pass-1234\n', { mode: 0o600 });
  const settings = await settingsOf({
    channels: [
      {
        type: 'email',
        host: '127.0.0.1',
        port,
        security: 'none',
        user: 'certhub',
        password_file: passwordFile,
        from: 'certhub@example.com',
        to: ['ops@example.com', 'oncall@example.com'],
      },
    ],
  });
  const logged: LogRecord[] = [];
  const notifier = await openNotifier(new FileDocuments(dataDir), settings, {
    clock: systemClock,
    log: loggerFrom('domains', (record) => logged.push(record)),
  });
  t.teardown(() => notifier.queue.stop());
  notifier.queue.start();
  notifier.notify({
    ...notice,
    event: 'host_stale',
    reason: 'serves an older certificate',
    attempt: null,
    next_attempt_at: null,
    host: { id: 'h1', name: 'web-1' },
  });
  t.true(await settled(() => mails.length === 1 && notifier.queue.pending().length === 0));
  const [mail] = mails;
  t.like(mail, { from: 'certhub@example.com', to: ['ops@example.com', 'oncall@example.com'], user: 'certhub' });
  t.regex(mail?.data ?? '', /^Subject: certhub: Host web-1 stale: app\.example\.com$/m);
  t.regex(mail?.data ?? '', /^X-Certhub-Delivery: [0-9a-f-]{36}$/m);
  t.regex(mail?.data ?? '', /^serves an older certificate$/m);
  t.false(
    logged.some((record) => record.message.includes('smtp-pass')),
    'the password is not logged',
  );
});

test('secrets: a file others may read, a missing file, an unset variable are config errors naming the option', async (t) => {
  const dataDir = await certDataDir(t);
  const open = join(dataDir, 'open-secret');
  await writeFile(open, 'x', { mode: 0o644 });
  const error = await t.throwsAsync(
    notifySettings(
      notifySchema.parse({
        channels: [
          { type: 'webhook', url: 'https://hooks.example.net/a', secret_file: open },
          { type: 'ntfy', url: 'https://ntfy.sh/t', token_file: join(dataDir, 'none') },
          { type: 'email', host: 'smtp.example.net', user: 'u', password_env: 'SMTP_PASSWORD', from: 'a@example.net', to: ['b@example.net'] },
        ],
      }),
      {},
    ),
  );
  t.deepEqual((error as unknown as { problems: string[] }).problems, [
    `notify.channels[0].secret_file: ${open} is readable by group or others (mode 0644): run chmod 600 ${open}`,
    `notify.channels[1].token_file: ${join(dataDir, 'none')} cannot be read: ENOENT`,
    'notify.channels[2].password_env: the environment variable SMTP_PASSWORD is not set',
  ]);
});

test('a channel with digest_at receives one signed digest at its time; another receives each notice at once', async (t) => {
  const { received, base } = await startReceiver(t);
  const dataDir = await certDataDir(t);
  const secretFile = join(dataDir, 'webhook-secret');
  await writeFile(secretFile, 'whsec-digest-0123456789\n', { mode: 0o600 });
  const settings = await settingsOf({
    channels: [
      { type: 'webhook', name: 'daily', url: `${base}/daily`, secret_file: secretFile, digest_at: '08:00' },
      { type: 'slack', name: 'now', url: `${base}/slack` },
    ],
  });
  // A second before today's (or tomorrow's) 08:00 UTC, so the signature's time is near the real one.
  const clock = new ManualClock(nextDigestAt(Date.now(), 8 * 60) - 1000);
  const notifier = await openNotifier(new FileDocuments(dataDir), settings, { clock, log: loggerFrom('domains', () => {}) });
  t.teardown(() => notifier.stop());
  notifier.start();
  notifier.notify(notice);
  notifier.notify({ ...notice, domain: 'api.example.com', event: 'expires_soon', reason: null, attempt: null, next_attempt_at: null });
  t.true(await settled(() => received.filter((request) => request.path === '/slack').length === 2), 'each notice at once to the other channel');
  t.false(
    received.some((request) => request.path === '/daily'),
    'the digest channel waits',
  );
  t.is(notifier.digests.pending('daily').length, 2);
  clock.advance(1000);
  t.true(await settled(() => received.some((request) => request.path === '/daily') && notifier.queue.pending().length === 0));
  const digests = received.filter((request) => request.path === '/daily');
  t.is(digests.length, 1, 'one digest');
  const [delivered] = digests;
  if (delivered === undefined) return;
  const digest = JSON.parse(delivered.body) as DigestNotice;
  t.is(digest.event, 'digest');
  t.is(delivered.headers['x-certhub-event'], 'digest');
  t.deepEqual(
    digest.notices.map((each) => [each.event, each.domain]),
    [
      ['renewal_failed', 'app.example.com'],
      ['expires_soon', 'api.example.com'],
    ],
  );
  t.true(verifySignature('whsec-digest-0123456789', String(delivered.headers['x-certhub-signature']), delivered.body, Math.floor(clock.now() / 1000)));
  t.is(notifier.digests.pending('daily').length, 0);
});
