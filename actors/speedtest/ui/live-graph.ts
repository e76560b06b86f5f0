// The running phase's live figure against time, under the dial: how steady the link was, which one
// number cannot show. The x axis is the phase's whole duration, so the line grows from the left.
import { byId } from '../../../ui/common/dom.js';

// The SVG's viewBox; CSS stretches it to the panel's width (preserveAspectRatio="none").
const width = 300;
const height = 48;
/** Room above the highest point, so the peak does not touch the top. */
const headroom = 1.15;

interface Reading {
  at: number;
  value: number;
}

export class LiveGraph {
  private readonly line = byId<SVGPathElement>('live-graph-line');
  private readonly area = byId<SVGPathElement>('live-graph-area');
  private readings: Reading[] = [];
  private startedAt = 0;
  private phaseMs = 1;

  begin(phaseMs: number): void {
    this.readings = [];
    this.startedAt = performance.now();
    this.phaseMs = phaseMs;
    this.draw();
  }

  add(value: number): void {
    this.readings.push({ at: performance.now() - this.startedAt, value });
    this.draw();
  }

  private draw(): void {
    const top = Math.max(0, ...this.readings.map((reading) => reading.value)) * headroom || 1;
    const x = (at: number) => ((width * Math.min(at, this.phaseMs)) / this.phaseMs).toFixed(1);
    const points = this.readings.map(({ at, value }) => `${x(at)},${(height - (height * value) / top).toFixed(1)}`);
    const first = this.readings[0];
    const last = this.readings.at(-1);
    if (first === undefined || last === undefined) {
      this.line.setAttribute('d', '');
      this.area.setAttribute('d', '');
      return;
    }
    const line = `M${points.join('L')}`;
    this.line.setAttribute('d', line);
    this.area.setAttribute('d', `${line}L${x(last.at)},${height}L${x(first.at)},${height}Z`);
  }
}
