// A small two-line graph of a rate's last two minutes (read and write, receive and transmit), drawn
// into an inline SVG on a scale that fits the larger series, as the history graphs do on time.
import { formatRate } from './format.js';

const windowSeconds = 120;
const width = 240;
const height = 40;
const svgNamespace = 'http://www.w3.org/2000/svg';

export interface Sparkline {
  root: SVGSVGElement;
  update(points: readonly { t: number; a: number; b: number }[], now: number): void;
}

export function createSparkline(label: string): Sparkline {
  const root = document.createElementNS(svgNamespace, 'svg');
  root.setAttribute('viewBox', `0 0 ${width} ${height}`);
  root.setAttribute('preserveAspectRatio', 'none');
  root.setAttribute('class', 'sparkline');
  root.setAttribute('role', 'img');
  const lines = (['a', 'b'] as const).map((series) => {
    const path = document.createElementNS(svgNamespace, 'path');
    path.setAttribute('class', `sparkline-${series}`);
    root.append(path);
    return path;
  });
  return {
    root,
    update(points, now) {
      const visible = points.filter((point) => point.t >= now - windowSeconds);
      // At least 1 KiB/s full scale, so an idle device draws a flat line, not noise blown up.
      const top = Math.max(1024, ...visible.map((point) => Math.max(point.a, point.b)));
      (['a', 'b'] as const).forEach((series, index) => {
        const coordinates = visible.map((point) => `${x(point.t, now).toFixed(1)},${(height - (height * point[series]) / top).toFixed(1)}`);
        lines[index]!.setAttribute('d', coordinates.length > 0 ? `M${coordinates.join('L')}` : '');
      });
      root.dataset.points = String(visible.length);
      root.setAttribute('aria-label', `${label} over the last 2 minutes, full scale ${formatRate(top)}`);
    },
  };
}

function x(t: number, now: number): number {
  return Math.max(0, width * (1 - (now - t) / windowSeconds));
}
