// The central dial: an SVG arc that follows the live figure, eased every animation frame so it glides
// between the readings that arrive five times a second. The arc's position and the printed number are
// eased separately, so a change of scale moves the arc smoothly while the number stays continuous.
import { byId } from '../../../ui/common/dom.js';
import { formatGaugeValue } from './format.js';
import { GaugeScale, tickLabel } from './gauge-scale.js';

export type GaugeUnit = 'Mbps' | 'ms';

const svgNs = 'http://www.w3.org/2000/svg';
// Geometry in the SVG's viewBox (300 wide, cut off below the arc's ends): a 270° arc open at the bottom.
const centre = 150;
const radius = 120;
const startDegrees = 135;
const sweepDegrees = 270;
const tickInner = 99;
const tickOuter = 106;
const labelRadius = 82;
/** How quickly the dial catches up with a new reading. */
const easingMs = 220;

export class Gauge {
  private readonly arc = byId<SVGPathElement>('gauge-arc');
  private readonly tip = byId<SVGCircleElement>('gauge-tip');
  private readonly ticks = byId<SVGGElement>('gauge-ticks');
  private readonly label = byId('gauge-phase');
  private readonly value = byId('gauge-value');
  private readonly unit = byId('gauge-unit');
  private readonly scale = new GaugeScale();
  private readonly instant = matchMedia('(prefers-reduced-motion: reduce)');
  private labels: SVGTextElement[] = [];
  private targetValue = 0;
  private shownValue = 0;
  private shownFraction = 0;
  private frame: number | undefined;
  private lastFrameAt = 0;

  constructor() {
    const track = `M${point(startDegrees, radius)}A${radius} ${radius} 0 1 1 ${point(startDegrees + sweepDegrees, radius)}`;
    byId<SVGPathElement>('gauge-track').setAttribute('d', track);
    this.arc.setAttribute('d', track);
    this.buildTicks();
    this.draw();
  }

  /**
   * A new phase: its name and unit, the scale at its finest and the dial at zero at once. Easing down
   * from the last phase's figure would print it on a scale it does not fit (a download's 233 Mbps on
   * the upload's 0-100 dial, a 300 ms ping on the download's).
   */
  begin(phaseName: string, unit: GaugeUnit): void {
    this.unit.textContent = unit;
    this.rest(phaseName);
  }

  set(value: number): void {
    this.targetValue = Math.max(0, value);
    if (this.scale.fit(this.targetValue)) this.labelTicks();
    this.animate();
  }

  /** Between tests: the dial empty on its finest scale, under `caption`. */
  rest(caption: string): void {
    this.label.textContent = caption;
    this.scale.reset();
    this.labelTicks();
    this.targetValue = 0;
    this.shownValue = 0;
    this.shownFraction = 0;
    this.draw();
  }

  private animate(): void {
    if (this.frame !== undefined) return;
    this.lastFrameAt = performance.now();
    this.frame = requestAnimationFrame((now) => this.step(now));
  }

  private step(now: number): void {
    const targetFraction = this.scale.fraction(this.targetValue);
    // A frame's timestamp is when the frame began, which can be a little before animate() ran.
    const elapsedMs = Math.max(0, now - this.lastFrameAt);
    const catchUp = this.instant.matches ? 1 : 1 - Math.exp(-elapsedMs / easingMs);
    this.lastFrameAt = now;
    this.shownValue += (this.targetValue - this.shownValue) * catchUp;
    this.shownFraction += (targetFraction - this.shownFraction) * catchUp;
    const settled = Math.abs(targetFraction - this.shownFraction) < 1e-4 && Math.abs(this.targetValue - this.shownValue) < 0.005;
    if (settled) {
      this.shownValue = this.targetValue;
      this.shownFraction = targetFraction;
    }
    this.draw();
    this.frame = settled ? undefined : requestAnimationFrame((next) => this.step(next));
  }

  private draw(): void {
    const fraction = this.shownFraction;
    this.arc.style.strokeDasharray = `${(fraction * 100).toFixed(3)} 100`;
    // A round line cap draws a dot even at length zero.
    this.arc.style.visibility = fraction > 0.002 ? 'visible' : 'hidden';
    const [x, y] = coordinates(startDegrees + sweepDegrees * fraction, radius);
    this.tip.setAttribute('cx', x.toFixed(2));
    this.tip.setAttribute('cy', y.toFixed(2));
    this.value.textContent = formatGaugeValue(this.shownValue);
    const ticks = this.scale.ticks;
    this.labels.forEach((label, index) => label.classList.toggle('passed', (ticks[index] ?? 0) <= this.shownValue && this.shownValue > 0));
  }

  private buildTicks(): void {
    const count = this.scale.ticks.length;
    const marks: SVGElement[] = [];
    this.labels = [];
    for (let index = 0; index < count; index += 1) {
      const degrees = startDegrees + (sweepDegrees * index) / (count - 1);
      marks.push(tickLine(degrees, 'gauge-tick'));
      if (index < count - 1) marks.push(tickLine(degrees + sweepDegrees / (count - 1) / 2, 'gauge-tick gauge-tick-minor'));
      const label = document.createElementNS(svgNs, 'text');
      const [x, y] = coordinates(degrees, labelRadius);
      label.setAttribute('x', x.toFixed(1));
      label.setAttribute('y', y.toFixed(1));
      label.setAttribute('class', 'gauge-label');
      this.labels.push(label);
      marks.push(label);
    }
    this.ticks.replaceChildren(...marks);
    this.labelTicks();
  }

  private labelTicks(): void {
    const ticks = this.scale.ticks;
    this.labels.forEach((label, index) => (label.textContent = tickLabel(ticks[index] ?? 0)));
  }
}

function tickLine(degrees: number, className: string): SVGLineElement {
  const line = document.createElementNS(svgNs, 'line');
  const [x1, y1] = coordinates(degrees, tickInner);
  const [x2, y2] = coordinates(degrees, tickOuter);
  line.setAttribute('x1', x1.toFixed(1));
  line.setAttribute('y1', y1.toFixed(1));
  line.setAttribute('x2', x2.toFixed(1));
  line.setAttribute('y2', y2.toFixed(1));
  line.setAttribute('class', className);
  return line;
}

/** Degrees clockwise from the positive x axis (SVG's y axis points down). */
function coordinates(degrees: number, distance: number): [number, number] {
  const radians = (degrees * Math.PI) / 180;
  return [centre + distance * Math.cos(radians), centre + distance * Math.sin(radians)];
}

function point(degrees: number, distance: number): string {
  return coordinates(degrees, distance)
    .map((value) => value.toFixed(2))
    .join(' ');
}
