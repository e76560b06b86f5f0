// A rolling two-minute graph drawn into an inline SVG from the server's history points. The x axis
// is time, not point index, so a history that has not filled the window yet grows in from the right
// instead of being stretched across it.
import type { HistoryPoint } from '../browser.js';
import { byId } from '../../../ui/common/dom.js';
import { formatPercent } from './format.js';

const windowSeconds = 120;
// The SVG's viewBox; CSS stretches it to the panel (preserveAspectRatio="none").
const width = 600;
const height = 160;

export class HistoryGraph {
  private readonly line: SVGPathElement;
  private readonly area: SVGPathElement;
  private readonly dot: HTMLElement;
  private readonly current: HTMLElement;
  private readonly stats: HTMLElement;

  /** `metric` names the graph's elements in index.html: `#cpu-history`, `#cpu-history-now`, … */
  constructor(metric: string) {
    const svg = byId(`${metric}-history`);
    const line = svg.querySelector<SVGPathElement>('.graph-line');
    const area = svg.querySelector<SVGPathElement>('.graph-area');
    if (line === null || area === null) throw new Error(`#${metric}-history lacks its paths`);
    this.line = line;
    this.area = area;
    this.dot = byId(`${metric}-history-dot`);
    this.current = byId(`${metric}-history-now`);
    this.stats = byId(`${metric}-history-stats`);
  }

  /** `now` is the snapshot's timestamp: the graph's right edge. */
  update(history: readonly HistoryPoint[], now: number): void {
    const visible = history.filter((point) => point.t >= now - windowSeconds);
    const coordinates = visible.map((point) => `${x(point.t, now).toFixed(1)},${y(point.v).toFixed(1)}`);
    const line = coordinates.length > 0 ? `M${coordinates.join('L')}` : '';
    this.line.setAttribute('d', line);
    // The point count, readable without parsing the path (the browser test checks the graph grows).
    this.line.dataset.points = String(coordinates.length);
    const first = visible[0];
    const last = visible.at(-1);
    this.dot.hidden = last === undefined;
    if (first === undefined || last === undefined) {
      this.area.setAttribute('d', '');
      this.current.textContent = '—';
      this.stats.textContent = 'collecting…';
      return;
    }
    // The dot marks the latest value, and is all there is to see while the history holds one point.
    // It is HTML rather than SVG because the stretched viewBox would squash a circle.
    this.dot.style.left = `${(100 * x(last.t, now)) / width}%`;
    this.dot.style.top = `${(100 * y(last.v)) / height}%`;
    this.area.setAttribute('d', `${line}L${x(last.t, now).toFixed(1)},${height}L${x(first.t, now).toFixed(1)},${height}Z`);
    const values = visible.map((point) => point.v);
    const average = values.reduce((sum, value) => sum + value, 0) / values.length;
    this.current.textContent = formatPercent(last.v);
    this.stats.textContent = `avg ${formatPercent(average)} · peak ${formatPercent(Math.max(...values))}`;
  }
}

function x(t: number, now: number): number {
  return Math.max(0, width * (1 - (now - t) / windowSeconds));
}

function y(percent: number): number {
  return height * (1 - Math.min(100, Math.max(0, percent)) / 100);
}
