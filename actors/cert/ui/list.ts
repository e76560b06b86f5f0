// The domain list, windowed: only the rows in (and just around) the scroll viewport exist in the
// DOM, reused by name as the list scrolls, sorts or filters, so 10,000 domains cost as little as 40.
// Rows are one fixed height; the one expanded row adds its measured details height below it.
import type { DomainSummary } from '../browser.js';
import { DetailsView, type DetailsActions } from './details.js';
import type { DomainModel } from './model.js';
import { RowView } from './row.js';

/** Rows drawn beyond each edge of the viewport, so a fast scroll or Tab finds them ready. */
const overscan = 12;

export class DomainList {
  private readonly views = new Map<string, RowView>();
  private expanded: { name: string; row: RowView; details: DetailsView } | undefined;
  private rowHeight = 0;
  private extra = 0;
  private frame = 0;

  constructor(
    private readonly model: DomainModel,
    private readonly scroller: HTMLElement,
    private readonly list: HTMLElement,
    private readonly actions: DetailsActions & { selectionChanged(): void },
  ) {
    scroller.addEventListener('scroll', () => this.schedule(), { passive: true });
    window.addEventListener('resize', () => {
      this.rowHeight = 0;
      this.schedule();
    });
    list.addEventListener('click', (event) => {
      const toggle = (event.target as Element).closest('.row-name');
      const name = toggle?.closest<HTMLElement>('.row')?.dataset.name;
      if (name !== undefined) this.toggle(name);
    });
    list.addEventListener('change', (event) => {
      const box = event.target as HTMLInputElement;
      const name = box.closest<HTMLElement>('.row')?.dataset.name;
      if (!box.classList.contains('row-check') || name === undefined) return;
      if (box.checked) model.selected.add(name);
      else model.selected.delete(name);
      actions.selectionChanged();
    });
  }

  /** A domain changed: its row (if drawn) updates in place, its details (if expanded) read it again. */
  updateDomain(domain: DomainSummary): void {
    this.views.get(domain.name)?.update(domain);
    if (this.expanded?.name === domain.name) this.expanded.details.reload();
  }

  forget(name: string): void {
    if (this.expanded?.name === name) this.expanded = undefined;
  }

  scrollToTop(): void {
    this.scroller.scrollTop = 0;
  }

  private schedule(): void {
    if (this.frame !== 0) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  private toggle(name: string): void {
    const previous = this.expanded;
    if (previous !== undefined) {
      previous.row.setExpanded(false);
      previous.details.node.remove();
      this.expanded = undefined;
      this.extra = 0;
      if (!this.views.has(previous.name)) previous.row.node.remove();
    }
    const domain = this.model.all.get(name);
    if (previous?.name !== name && domain !== undefined) {
      const row = this.views.get(name) ?? new RowView(domain);
      const details = new DetailsView(domain, this.actions);
      row.node.append(details.node);
      row.setExpanded(true);
      this.expanded = { name, row, details };
    }
    this.render();
  }

  /** Draws the rows the viewport shows; rows already drawn are kept, moved only if their order changed. */
  render(): void {
    const visible = this.model.visible;
    if (this.rowHeight === 0 && visible[0] !== undefined) this.measureRowHeight(visible[0]);
    const height = this.rowHeight || 40;
    const expandedIndex = this.expanded === undefined ? -1 : visible.findIndex((domain) => domain.name === this.expanded?.name);
    const extra = expandedIndex < 0 ? 0 : this.extra;
    const top = (index: number) => index * height + (expandedIndex >= 0 && index > expandedIndex ? extra : 0);
    const indexAt = (y: number) => {
      const plain = Math.floor(y / height);
      if (expandedIndex < 0 || plain <= expandedIndex) return plain;
      return Math.max(expandedIndex, Math.floor((y - extra) / height));
    };
    const viewTop = this.scroller.scrollTop;
    const viewHeight = this.scroller.clientHeight || window.innerHeight;
    const start = Math.max(0, indexAt(viewTop) - overscan);
    const end = Math.min(visible.length, indexAt(viewTop + viewHeight) + 1 + overscan);

    const wanted = new Map<string, RowView>();
    for (let index = start; index < end; index++) {
      const domain = visible[index]!;
      const view = this.expanded?.name === domain.name ? this.expanded.row : (this.views.get(domain.name) ?? new RowView(domain));
      view.update(domain);
      view.setSelected(this.model.selected.has(domain.name));
      wanted.set(domain.name, view);
    }
    for (const [name, view] of this.views) if (!wanted.has(name)) view.node.remove();
    let previous: Element | null = null;
    for (const view of wanted.values()) {
      const expected: Element | null = previous === null ? this.list.firstElementChild : previous.nextElementSibling;
      if (expected !== view.node) this.list.insertBefore(view.node, expected);
      previous = view.node;
    }
    this.views.clear();
    for (const [name, view] of wanted) this.views.set(name, view);

    if (this.expanded !== undefined && wanted.has(this.expanded.name)) {
      const measured = this.expanded.row.node.offsetHeight - height;
      if (measured !== this.extra) {
        this.extra = measured;
        return this.render();
      }
    }
    const total = visible.length * height + extra;
    this.list.style.paddingTop = `${top(start)}px`;
    this.list.style.paddingBottom = `${Math.max(0, total - top(end))}px`;
  }

  /** Selection marks of the drawn rows, after select-all or clearing. */
  redrawSelection(): void {
    for (const [name, view] of this.views) view.setSelected(this.model.selected.has(name));
  }

  private measureRowHeight(sample: DomainSummary): void {
    const probe = this.views.get(sample.name) ?? new RowView(sample);
    const attached = probe.node.isConnected;
    if (!attached) this.list.append(probe.node);
    this.rowHeight = probe.node.classList.contains('expanded') ? 0 : probe.node.offsetHeight;
    if (!attached) probe.node.remove();
  }
}
