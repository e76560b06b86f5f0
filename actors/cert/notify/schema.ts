// The `notify` section of certhub's config.json: the channels notices go to, each with the events it
// receives, and how long a delivery is retried. Secrets (a webhook's signing secret, an ntfy token,
// an SMTP password) are named by a file (mode 0600) or an environment variable, never written in
// config.json; settings.ts reads them before any actor starts.
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { positiveInteger } from '../../../src/config/rules.js';
import { noticeEvents, type NoticeEvent } from '../domains/notices.js';

const httpUrl = z.url({ protocol: /^https?$/ });
const absolutePath = z.string().refine((path) => isAbsolute(path), { message: 'must be an absolute path' });
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'must be the name of an environment variable' });

/** What a channel receives when its `events` is left out: every event but `issued`. */
export const defaultChannelEvents: readonly NoticeEvent[] = noticeEvents.filter((event) => event !== 'issued');

/** What notify.webhook_url receives. */
export const webhookUrlEvents: readonly NoticeEvent[] = ['issuance_failed', 'renewal_failed', 'expires_soon'];

const common = {
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, { message: 'must be lower-case letters, digits, - and _ (at most 63)' })
    .optional()
    .describe('Its name in logs and in the delivery queue; default: the type and the index, e.g. ntfy-1.'),
  events: z
    .array(z.enum(noticeEvents))
    .min(1)
    .default([...defaultChannelEvents])
    .describe(`The events it receives, of ${noticeEvents.join(', ')}; default: every event but issued.`),
  digest_at: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'must be a time of day, HH:MM (UTC), e.g. 08:00' })
    .optional()
    .describe(
      'HH:MM (UTC): the channel receives one digest a day at this time, of every notice of its events since the digest before, instead of each notice as it comes; a day without a notice sends none.',
    ),
};

const secretFile = (what: string) => absolutePath.optional().describe(`A file (mode 0600) holding ${what}.`);
const secretEnv = (what: string) => envName.optional().describe(`An environment variable holding ${what}, instead of the file.`);

const webhookChannel = z.strictObject({
  type: z.literal('webhook').describe('A JSON POST of the notice, signed when a secret is given (X-Certhub-Signature).'),
  url: httpUrl.describe('Where the notice is posted.'),
  secret_file: secretFile('the HMAC-SHA256 signing secret'),
  secret_env: secretEnv('the signing secret'),
  ...common,
});

const ntfyChannel = z.strictObject({
  type: z.literal('ntfy').describe('An ntfy topic: the notice as text, with Title, Priority and Tags.'),
  url: httpUrl.describe('The topic URL, e.g. https://ntfy.sh/certhub-alerts.'),
  token_file: secretFile('an ntfy access token (sent as a bearer token)'),
  token_env: secretEnv('the access token'),
  ...common,
});

const slackChannel = z.strictObject({
  type: z.literal('slack').describe('A Slack-compatible incoming webhook ({"text", "blocks"}; Mattermost and Rocket.Chat take it too).'),
  url: httpUrl.describe('The incoming webhook URL.'),
  ...common,
});

const discordChannel = z.strictObject({
  type: z.literal('discord').describe('A Discord-compatible incoming webhook ({"content"}); mentions in the text ping no one.'),
  url: httpUrl.describe('The webhook URL.'),
  ...common,
});

const emailChannel = z.strictObject({
  type: z.literal('email').describe('An e-mail through an SMTP server.'),
  host: z.string().min(1).describe('The SMTP server.'),
  port: positiveInteger.max(65_535).default(587).describe('Its port: 587 for STARTTLS, 465 for TLS.'),
  security: z
    .enum(['starttls', 'tls', 'none'])
    .default('starttls')
    .describe('starttls: STARTTLS required; tls: TLS from the first byte; none: plain SMTP (a relay on loopback).'),
  user: z.string().min(1).optional().describe('The login, with a password from password_file or password_env.'),
  password_file: secretFile('the SMTP password'),
  password_env: secretEnv('the SMTP password'),
  from: z.email().describe('The sender address.'),
  to: z.array(z.email()).min(1).describe('The recipients.'),
  ...common,
});

const channelSchema = z
  .discriminatedUnion('type', [webhookChannel, ntfyChannel, slackChannel, discordChannel, emailChannel])
  .superRefine((channel, context) => {
    const pairs: [string, string][] = [
      ['secret_file', 'secret_env'],
      ['token_file', 'token_env'],
      ['password_file', 'password_env'],
    ];
    const fields = channel as Record<string, unknown>;
    for (const [file, env] of pairs) {
      if (fields[file] !== undefined && fields[env] !== undefined)
        context.addIssue({ code: 'custom', path: [env], message: `cannot be used with ${file}: give one` });
    }
    if (channel.type === 'email' && channel.user === undefined && (channel.password_file !== undefined || channel.password_env !== undefined))
      context.addIssue({ code: 'custom', path: ['user'], message: 'is required with a password' });
  });

export type ChannelConfig = z.output<typeof channelSchema>;

export const notifySchema = z
  .strictObject({
    webhook_url: httpUrl.optional().describe(`Receives a JSON POST (unsigned) of ${webhookUrlEvents.join(', ')}: a webhook channel named webhook_url.`),
    channels: z.array(channelSchema).max(20).default([]).describe('Where notices go: webhook, ntfy, slack, discord or email, each with its events.'),
    retry_seconds: positiveInteger.max(3600).default(30).describe('The first retry of a failed delivery; each next waits twice as long, up to an hour.'),
    give_up_after_hours: positiveInteger
      .max(7 * 24)
      .default(24)
      .describe('A delivery not taken this long after its notice is dropped (logged).'),
  })
  .superRefine((notify, context) => {
    const seen = new Set<string>(notify.webhook_url === undefined ? [] : ['webhook_url']);
    for (const [index, channel] of notify.channels.entries()) {
      const name = channelName(channel, index);
      if (seen.has(name)) context.addIssue({ code: 'custom', path: ['channels', index, 'name'], message: `${name} names another channel already` });
      seen.add(name);
    }
  })
  .describe('Where certhub sends notices: issuances, failures, coming expiries, stale hosts, a change of CA (docs/certhub.md, Notifications).');

export function channelName(channel: ChannelConfig, index: number): string {
  return channel.name ?? `${channel.type}-${index}`;
}
