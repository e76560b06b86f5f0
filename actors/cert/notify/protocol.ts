// The notification settings as the domains actor gets them (the config's, secrets read in role.ts):
// types only, so the domains protocol, which the panel's type-check reads too, names them without
// pulling in the senders' Node code.
import type { DomainNotice, NoticeEvent } from '../domains/notices.js';

/** A channel's daily digest (digest_at): every notice of its events since the digest before. */
export interface DigestNotice {
  event: 'digest';
  /** The earliest notice's time and the digest's. */
  from: string;
  at: string;
  notices: DomainNotice[];
}

/** What one delivery carries: a notice, or a digest of notices. */
export type Notice = DomainNotice | DigestNotice;

export interface SmtpSettings {
  host: string;
  port: number;
  /** tls: TLS from the first byte (465); starttls: STARTTLS required (587); none: plain, loopback and tests only. */
  security: 'tls' | 'starttls' | 'none';
  user?: string;
  /** Read from password_file or password_env (role.ts); never logged. */
  password?: string;
}

interface ChannelBase {
  name: string;
  /** The events the channel receives. */
  events: readonly NoticeEvent[];
  /** digest_at, in minutes after midnight UTC: the channel gets one digest a day then, instead of each notice. */
  digestAtMinute?: number;
}

/** A channel as the domains actor gets it: the config's, with its secrets read (role.ts). */
export type ChannelSettings = ChannelBase &
  (
    | { type: 'webhook'; url: string; secret?: string }
    | { type: 'ntfy'; url: string; token?: string }
    | { type: 'slack'; url: string }
    | { type: 'discord'; url: string }
    | { type: 'email'; smtp: SmtpSettings; from: string; to: readonly string[] }
  );

export interface NotifySettings {
  channels: readonly ChannelSettings[];
  /** notify.retry_seconds, in ms: the first retry's delay; doubled up to an hour. */
  retryBaseMs: number;
  /** notify.give_up_after_hours, in ms. */
  giveUpAfterMs: number;
}
