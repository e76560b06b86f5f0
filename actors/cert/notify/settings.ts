// The `notify` section made into what the domains actor is handed: each channel named, its secrets
// read. Read before any actor starts, as every file the config names: a secret file missing, open to
// others, or empty, or an environment variable unset, is a config error naming the option (exit 2).
import { readFile, stat } from 'node:fs/promises';
import { ConfigError } from '../../../src/errors.js';
import type { ChannelSettings, NotifySettings } from './protocol.js';
import { channelName, webhookUrlEvents, type ChannelConfig, type notifySchema } from './schema.js';
import type { z } from 'zod';

type NotifyConfig = z.output<typeof notifySchema>;

/** The channels of `notify`, notify.webhook_url first; none configured: undefined. */
export async function notifySettings(notify: NotifyConfig, env: NodeJS.ProcessEnv = process.env): Promise<NotifySettings | undefined> {
  const channels: ChannelSettings[] = [];
  if (notify.webhook_url !== undefined) channels.push({ type: 'webhook', name: 'webhook_url', events: webhookUrlEvents, url: notify.webhook_url });
  const problems: string[] = [];
  for (const [index, channel] of notify.channels.entries()) {
    try {
      channels.push(await channelSettings(channel, index, env));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  if (channels.length === 0) return undefined;
  return { channels, retryBaseMs: notify.retry_seconds * 1000, giveUpAfterMs: notify.give_up_after_hours * 3_600_000 };
}

async function channelSettings(channel: ChannelConfig, index: number, env: NodeJS.ProcessEnv): Promise<ChannelSettings> {
  const base = {
    name: channelName(channel, index),
    events: channel.events,
    ...(channel.digest_at === undefined ? {} : { digestAtMinute: minuteOfDay(channel.digest_at) }),
  };
  const option = (field: string) => `notify.channels[${index}].${field}`;
  const secret = (file: string | undefined, variable: string | undefined, field: string) =>
    file !== undefined ? readSecret(option(`${field}_file`), file) : variable !== undefined ? envSecret(option(`${field}_env`), variable, env) : undefined;
  switch (channel.type) {
    case 'webhook': {
      const value = await secret(channel.secret_file, channel.secret_env, 'secret');
      return { ...base, type: 'webhook', url: channel.url, ...(value === undefined ? {} : { secret: value }) };
    }
    case 'ntfy': {
      const value = await secret(channel.token_file, channel.token_env, 'token');
      return { ...base, type: 'ntfy', url: channel.url, ...(value === undefined ? {} : { token: value }) };
    }
    case 'slack':
    case 'discord':
      return { ...base, type: channel.type, url: channel.url };
    case 'email': {
      const password = await secret(channel.password_file, channel.password_env, 'password');
      return {
        ...base,
        type: 'email',
        smtp: {
          host: channel.host,
          port: channel.port,
          security: channel.security,
          ...(channel.user === undefined ? {} : { user: channel.user }),
          ...(password === undefined ? {} : { password }),
        },
        from: channel.from,
        to: channel.to,
      };
    }
    default:
      throw new Error(`this should not happen: channel type ${(channel as { type: string }).type}`);
  }
}

/** `HH:MM` in minutes after midnight. */
function minuteOfDay(time: string): number {
  const [hours = 0, minutes = 0] = time.split(':').map(Number);
  return hours * 60 + minutes;
}

/** The secret in `path` without its final line break; the file must be its owner's alone. */
async function readSecret(option: string, path: string): Promise<string> {
  let text: string;
  try {
    const mode = (await stat(path)).mode & 0o777;
    if ((mode & 0o077) !== 0)
      throw new ConfigError([`${option}: ${path} is readable by group or others (mode ${mode.toString(8).padStart(4, '0')}): run chmod 600 ${path}`]);
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError([`${option}: ${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`]);
  }
  const value = text.replace(/\r?\n$/, '');
  if (value === '') throw new ConfigError([`${option}: ${path} is empty`]);
  return value;
}

function envSecret(option: string, variable: string, env: NodeJS.ProcessEnv): string {
  const value = env[variable];
  if (value === undefined || value === '') throw new ConfigError([`${option}: the environment variable ${variable} is not set`]);
  return value;
}
