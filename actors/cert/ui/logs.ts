// The Logs tab: the server's live log (/api/admin/logs), starting with its recent backlog when the
// tab is first opened. Lines below the chosen level are hidden by the stylesheet, not dropped, so
// changing the level shows them again. The view follows new lines unless the user has scrolled up.
import type { LogRecord } from '../../../src/log/record.js';
import { byId, element } from '../../../ui/common/dom.js';
import { clockTime } from './format.js';
import { openStream } from './stream.js';

/** Lines kept on the page; the oldest go first. */
const maxLines = 2000;
const backlog = 300;

const lines = byId<HTMLOListElement>('log-lines');
const follow = byId<HTMLButtonElement>('log-follow');
const level = byId<HTMLSelectElement>('log-level');
let started = false;
let following = true;

lines.addEventListener('scroll', () => {
  following = lines.scrollTop + lines.clientHeight >= lines.scrollHeight - 4;
  follow.hidden = following;
});
follow.addEventListener('click', () => {
  following = true;
  follow.hidden = true;
  lines.scrollTop = lines.scrollHeight;
});
level.addEventListener('change', () => {
  lines.dataset.level = level.value;
  if (following) lines.scrollTop = lines.scrollHeight;
});
lines.dataset.level = level.value;

function line(record: LogRecord): HTMLLIElement {
  const item = element('li', 'log-line');
  item.dataset.level = record.level;
  const time = element('time', 'log-time', clockTime(record.time));
  time.dateTime = new Date(record.time).toISOString();
  const fields = record.fields === undefined || Object.keys(record.fields).length === 0 ? '' : ` ${JSON.stringify(record.fields)}`;
  item.append(
    time,
    element('span', 'log-level-tag', record.level),
    element('span', 'log-source', record.source),
    element('span', 'log-message', `${record.message}${fields}`),
  );
  return item;
}

/** Opens the log stream the first time the tab is shown; it stays open afterwards. */
export function startLogs(): void {
  if (started) return;
  started = true;
  openStream(
    `api/admin/logs?backlog=${backlog}`,
    {
      log(data) {
        lines.append(line(JSON.parse(data) as LogRecord));
        while (lines.childElementCount > maxLines) lines.firstElementChild?.remove();
        if (following) lines.scrollTop = lines.scrollHeight;
      },
    },
    () => {
      // Every connection starts with the backlog again: what was shown is in it.
      lines.replaceChildren();
    },
  );
}
