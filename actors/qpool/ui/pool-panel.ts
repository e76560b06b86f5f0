// The live pool figures: how full it is, the age range of what it holds, what it has served and
// when values last arrived. Raw numbers also go into data-value so a test need not parse "1,234".
import type { PoolStatus } from '../browser.js';
import { byId } from '../../../ui/common/dom.js';
import { formatCount, formatPercent } from './format.js';
import { showTime } from './time-field.js';

/** Under this share of capacity the bar turns amber: the pool will run dry soon at a steady draw. */
const lowPercent = 10;

export class PoolPanel {
  private readonly available = byId('available');
  private readonly capacity = byId('capacity');
  private readonly fillPercent = byId('fill-percent');
  private readonly meter = byId('pool-meter');
  private readonly empty = byId('pool-empty');
  private readonly newest = byId<HTMLTimeElement>('newest');
  private readonly oldest = byId<HTMLTimeElement>('oldest');
  private readonly servedTotal = byId('served-total');
  private readonly lastIngest = byId<HTMLTimeElement>('last-ingest');

  update(status: PoolStatus, nowMs: number): void {
    setCount(this.available, status.available);
    setCount(this.capacity, status.capacity);
    setCount(this.servedTotal, status.served_total);
    const percent = status.capacity > 0 ? (status.available / status.capacity) * 100 : 0;
    const shown = Math.min(100, Math.max(0, percent));
    this.fillPercent.textContent = status.available === 0 ? 'empty' : `${formatPercent(shown)} full`;
    this.meter.style.setProperty('--fill', `${shown}%`);
    this.meter.setAttribute('aria-valuenow', String(Math.round(shown)));
    this.meter.dataset.level = status.available === 0 ? 'empty' : percent < lowPercent ? 'low' : 'ok';
    this.empty.hidden = status.available > 0;
    showTime(this.newest, status.newest, '—', nowMs);
    showTime(this.oldest, status.oldest, '—', nowMs);
    showTime(this.lastIngest, status.last_ingest, 'never', nowMs);
  }
}

function setCount(node: HTMLElement, count: number): void {
  node.textContent = formatCount(count);
  node.dataset.value = String(count);
}
