// A notice in words, for the channels people read (ntfy, Slack, Discord, e-mail): a title and a few
// lines; a digest's lines are its notices, one each. The generic webhook sends the notice itself, as JSON.
import type { DomainNotice, NoticeEvent } from '../domains/notices.js';
import type { DigestNotice, Notice } from './protocol.js';

const titles: Record<NoticeEvent, (notice: DomainNotice) => string> = {
  issued: (notice) => `Certificate issued: ${notice.domain}`,
  issuance_failed: (notice) => `Issuance failed: ${notice.domain}`,
  renewal_failed: (notice) => `Renewal failed: ${notice.domain}`,
  expires_soon: (notice) => `Expires soon, not renewed: ${notice.domain}`,
  host_stale: (notice) => `Host ${notice.host?.name ?? ''} stale: ${notice.domain}`,
  host_reload_failed: (notice) => `Reload failed on ${notice.host?.name ?? ''}: ${notice.domain}`,
  ca_fallback: (notice) => `Next CA for ${notice.domain}`,
};

export function noticeTitle(notice: Notice): string {
  if (notice.event === 'digest') return `certhub: daily digest, ${notice.notices.length} notice${notice.notices.length === 1 ? '' : 's'}`;
  return `certhub: ${titles[notice.event](notice)}`;
}

/** The lines under the title: only the facts the notice holds; a digest's notices, one line each, oldest first. */
export function noticeLines(notice: Notice): string[] {
  if (notice.event === 'digest') return digestLines(notice);
  const lines: string[] = [];
  if (notice.reason !== null) lines.push(notice.reason);
  if (notice.attempt !== null) lines.push(`Attempt ${notice.attempt}${notice.next_attempt_at === null ? '' : `, the next at ${notice.next_attempt_at}`}`);
  if (notice.expires_at !== null) lines.push(`The certificate served expires at ${notice.expires_at}`);
  if (notice.ca !== null) lines.push(`${notice.event === 'issued' ? 'Issued by' : 'The next attempt goes to'} ${notice.ca}`);
  return lines;
}

function digestLines(digest: DigestNotice): string[] {
  return digest.notices.map((notice) => `${notice.at} ${titles[notice.event](notice)}${notice.reason === null ? '' : `: ${notice.reason}`}`);
}

/** How urgent, 1 (least) to 5: a digest as its most urgent notice. */
export function priorityOf(notice: Notice): number {
  if (notice.event !== 'digest') return noticePriority[notice.event];
  return Math.max(1, ...notice.notices.map((each) => noticePriority[each.event]));
}

/** ntfy's Tags of a notice. */
export function tagsOf(notice: Notice): string {
  return notice.event === 'digest' ? 'memo,certhub' : noticeTags[notice.event];
}

/** How urgent, 1 (least) to 5, as ntfy's Priority counts. */
export const noticePriority: Record<NoticeEvent, number> = {
  issued: 2,
  issuance_failed: 4,
  renewal_failed: 4,
  expires_soon: 5,
  host_stale: 4,
  host_reload_failed: 4,
  ca_fallback: 3,
};

/** ntfy's Tags: the first that names an emoji shows as one. */
export const noticeTags: Record<NoticeEvent, string> = {
  issued: 'white_check_mark,certhub',
  issuance_failed: 'warning,certhub',
  renewal_failed: 'warning,certhub',
  expires_soon: 'rotating_light,certhub',
  host_stale: 'hourglass,certhub',
  host_reload_failed: 'x,certhub',
  ca_fallback: 'twisted_rightwards_arrows,certhub',
};
