// The Audit tab: pages of the audit log (/api/admin/audit), newest first, filtered by action and
// domain. It loads when the tab is first shown and again when the filter changes; "Older entries"
// adds the next page below.
import { auditActions, type AuditEntry, type AuditPage } from '../browser.js';
import { byId, element } from '../../../ui/common/dom.js';
import { call } from './api.js';
import { dateTime } from './format.js';

const pageSize = 100;
/** A domain typed is looked up once typing pauses this long. */
const typingPauseMs = 300;

const filter = byId<HTMLFormElement>('audit-filter');
const action = byId<HTMLSelectElement>('audit-action');
const domain = byId<HTMLInputElement>('audit-domain');
const rows = byId<HTMLTableSectionElement>('audit-rows');
const status = byId('audit-status');
const more = byId<HTMLButtonElement>('audit-more');
let started = false;
let nextBefore: number | null = null;
/** Answers to an older filter are dropped: only the latest load draws. */
let generation = 0;
let typing: ReturnType<typeof setTimeout> | undefined;

for (const name of auditActions) action.append(new Option(name, name));

function row(entry: AuditEntry): HTMLTableRowElement {
  const item = document.createElement('tr');
  item.dataset.action = entry.action;
  item.dataset.outcome = entry.outcome === 'ok' ? 'ok' : 'refused';
  const time = element('time', undefined, dateTime(entry.at));
  time.dateTime = entry.at;
  const cells = [
    time,
    entry.action,
    entry.domain ?? '—',
    entry.outcome,
    entry.by,
    entry.client === '' ? '—' : entry.client,
    [entry.count !== undefined && entry.count > 1 ? `${entry.count} fetches` : '', entry.note ?? ''].filter((part) => part !== '').join('; '),
  ];
  for (const content of cells) {
    const cell = document.createElement('td');
    cell.append(content);
    item.append(cell);
  }
  return item;
}

async function load(append: boolean): Promise<void> {
  const mine = ++generation;
  const query = new URLSearchParams({ limit: String(pageSize) });
  if (action.value !== '') query.set('action', action.value);
  if (domain.value.trim() !== '') query.set('domain', domain.value.trim());
  if (append && nextBefore !== null) query.set('before', String(nextBefore));
  status.textContent = 'Loading…';
  let page: AuditPage;
  try {
    page = (await (await call(`api/admin/audit?${query.toString()}`)).json()) as AuditPage;
  } catch (error) {
    if (mine === generation) status.textContent = `The audit log could not be read: ${error instanceof Error ? error.message : String(error)}`;
    return;
  }
  if (mine !== generation) return;
  if (!append) rows.replaceChildren();
  rows.append(...page.entries.map(row));
  nextBefore = page.next_before;
  more.hidden = nextBefore === null;
  const shown = rows.childElementCount;
  status.textContent =
    shown === 0 ? 'No entries match.' : `${shown} ${shown === 1 ? 'entry' : 'entries'} shown, newest first${nextBefore === null ? '' : '; older ones below'}.`;
}

filter.addEventListener('submit', (event) => {
  event.preventDefault();
  void load(false);
});
action.addEventListener('change', () => void load(false));
domain.addEventListener('input', () => {
  clearTimeout(typing);
  typing = setTimeout(() => void load(false), typingPauseMs);
});
more.addEventListener('click', () => void load(true));

/** Loads the newest page the first time the tab is shown; the filter reloads it afterwards. */
export function startAudit(): void {
  if (started) return;
  started = true;
  void load(false);
}
