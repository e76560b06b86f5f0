// The Domains tab: the add form (add-form.ts), the filters (by name, stale hosts) and sort controls, select-all and the bulk
// bar, and the live list fed by /api/admin/events (a snapshot, then one event per changed or removed
// domain; each carries a domain's summary, what a row shows).
import { summaryOf, type DomainSummary, type DomainView } from '../browser.js';
import { byId } from '../../../ui/common/dom.js';
import { setUpAddForm } from './add-form.js';
import { openExport } from './export-modal.js';
import { DomainList } from './list.js';
import { DomainModel, type Sort } from './model.js';
import { prefs, remember } from './prefs.js';
import { openStream } from './stream.js';

const model = new DomainModel();
const filterInput = byId<HTMLInputElement>('filter');
const filterClear = byId('filter-clear');
const staleFilter = byId<HTMLButtonElement>('filter-stale');
const sortButtons = [byId<HTMLButtonElement>('sort-name'), byId<HTMLButtonElement>('sort-expires')];
const selectAll = byId<HTMLInputElement>('select-all');
const bulkBar = byId('bulk-bar');
const count = byId('list-count');
const empty = byId('rows-empty');
let baseDomain = '';

// The server pushes every change on the event stream before it answers the request that made it,
// so an answer may be older than what the stream already showed (an added domain already issuing):
// answers only fill in a domain the stream has not brought yet.
const applyAnswer = (domain: DomainView) => {
  if (!model.all.has(domain.name)) apply(summaryOf(domain));
};

const list = new DomainList(model, byId('rows-scroll'), byId('rows'), {
  changed: applyAnswer,
  removed: (name) => drop(name),
  selectionChanged: () => drawSelection(),
});

/** Marks the work of one user action for the panel benchmark (Chromium's performance timeline). */
function timed<T>(name: string, work: () => T): T {
  const start = performance.now();
  const result = work();
  performance.measure(`panel:${name}`, { start, end: performance.now() });
  return result;
}

function drawList(): void {
  list.render();
  const shown = model.visible.length;
  const total = model.all.size;
  count.textContent = shown === total ? `${total} domain${total === 1 ? '' : 's'}` : `${shown} of ${total} shown`;
  empty.hidden = shown > 0;
  empty.textContent =
    total === 0
      ? 'No domains yet: add one above.'
      : model.staleHostsOnly && model.filter.trim() === ''
        ? 'No domain has a stale host.'
        : `No domain${model.staleHostsOnly ? ' with a stale host' : ''} matches “${model.filter}”.`;
  drawSelection();
}

function drawSelection(): void {
  let ticked = 0;
  for (const domain of model.visible) if (model.selected.has(domain.name)) ticked++;
  selectAll.checked = ticked > 0 && ticked === model.visible.length;
  selectAll.indeterminate = ticked > 0 && ticked < model.visible.length;
  bulkBar.hidden = model.selected.size === 0;
  byId('bulk-count').textContent = `${model.selected.size} selected`;
  list.redrawSelection();
}

function drawSort(): void {
  for (const button of sortButtons) {
    const active = button.dataset.key === model.sort.key;
    button.setAttribute('aria-pressed', String(active));
    const mark = button.querySelector('.sort-mark');
    if (mark !== null) mark.textContent = active ? (model.sort.direction === 'asc' ? '▲' : '▼') : '';
    button.setAttribute(
      'aria-label',
      // The visible word first (WCAG 2.5.3: a voice user says what they see), then the order.
      `${button.dataset.key === 'name' ? 'Name' : 'Expires'}${active ? (model.sort.direction === 'asc' ? ', sorted ascending' : ', sorted descending') : ''}`,
    );
  }
}

function apply(domain: DomainSummary): void {
  if (baseDomain === '') baseDomain = domain.name.slice(domain.label.length + 1);
  if (model.upsert(domain)) drawList();
  // Also when it moved: its expanded details (drawn apart from the rows) follow it.
  list.updateDomain(domain);
}

function drop(name: string): void {
  list.forget(name);
  if (model.remove(name)) drawList();
  else drawSelection();
}

function setFilter(text: string): void {
  timed('filter', () => {
    model.setFilter(text);
    drawList();
  });
  filterClear.hidden = text === '';
  remember({ filter: text }, 'soon');
}

filterInput.addEventListener('input', () => setFilter(filterInput.value));
filterInput.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape' || filterInput.value === '') return;
  event.preventDefault();
  filterInput.value = '';
  setFilter('');
});
filterClear.addEventListener('click', () => {
  filterInput.value = '';
  setFilter('');
  filterInput.focus();
});

staleFilter.addEventListener('click', () => {
  const only = !model.staleHostsOnly;
  staleFilter.setAttribute('aria-pressed', String(only));
  timed('filter', () => {
    model.setStaleHostsOnly(only);
    drawList();
  });
});

for (const button of sortButtons) {
  button.addEventListener('click', () => {
    const key = button.dataset.key === 'expires' ? 'expires' : 'name';
    const sort: Sort = { key, direction: model.sort.key === key && model.sort.direction === 'asc' ? 'desc' : 'asc' };
    timed('sort', () => {
      model.setSort(sort);
      drawSort();
      drawList();
    });
    remember({ sort });
  });
}

selectAll.addEventListener('change', () => {
  const everyShown = model.visible.length > 0 && model.visible.every((domain) => model.selected.has(domain.name));
  for (const domain of model.visible) {
    if (everyShown) model.selected.delete(domain.name);
    else model.selected.add(domain.name);
  }
  drawSelection();
});
byId('bulk-clear').addEventListener('click', () => {
  model.selected.clear();
  drawSelection();
});
byId('bulk-export').addEventListener('click', () => openExport(model.selectedDomains()));

setUpAddForm(() => baseDomain, applyAnswer);

/**
 * Follows the server's domain events from now, while the remembered sort and filter are still on
 * their way (`prefsLoaded`): events wait for them, in order, so the first draw is already sorted and
 * filtered as the user left it and the two requests do not wait on each other.
 */
export function startDomains(prefsLoaded: Promise<void>): void {
  let ready = prefsLoaded.then(() => {
    model.sort = prefs.sort;
    model.filter = prefs.filter;
    filterInput.value = prefs.filter;
    filterClear.hidden = prefs.filter === '';
    drawSort();
  });
  const inOrder = (work: () => void) => {
    ready = ready.then(work);
  };
  let first = true;
  openStream('api/admin/events', {
    snapshot: (data) =>
      inOrder(() => {
        timed('snapshot', () => {
          const { domains } = JSON.parse(data) as { domains: DomainSummary[] };
          for (const domain of domains.slice(0, 1)) baseDomain = domain.name.slice(domain.label.length + 1);
          model.replaceAll(domains);
          drawList();
        });
        if (first) performance.mark('panel:first-render');
        first = false;
      }),
    domain: (data) => inOrder(() => timed('domain-event', () => apply(JSON.parse(data) as DomainSummary))),
    removed: (data) => inOrder(() => drop((JSON.parse(data) as { name: string }).name)),
  });
}
