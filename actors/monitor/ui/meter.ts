// A horizontal usage bar: one element whose fill (drawn by CSS) follows `--fill`, coloured by level.
import { element } from '../../../ui/common/dom.js';
import { usageLevel } from './usage-level.js';

export function createMeter(className = ''): HTMLElement {
  const meter = element('div', `meter ${className}`.trim());
  meter.setAttribute('role', 'meter');
  meter.setAttribute('aria-valuemin', '0');
  meter.setAttribute('aria-valuemax', '100');
  return meter;
}

export function setMeter(meter: HTMLElement, percent: number): void {
  const shown = Math.min(100, Math.max(0, percent));
  meter.style.setProperty('--fill', `${shown}%`);
  meter.dataset.level = usageLevel(percent);
  meter.setAttribute('aria-valuenow', String(shown));
}
