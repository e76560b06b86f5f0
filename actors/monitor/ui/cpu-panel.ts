// CPU: the aggregate bar, one bar per logical core and the load averages. Core bars are built once
// and then only updated, unless the number of cores changes (a VM resized, another host behind the URL).
import type { CpuInfo } from '../browser.js';
import { byId, element } from '../../../ui/common/dom.js';
import { formatLoad, formatPercent } from './format.js';
import { createMeter, setMeter } from './meter.js';

interface CoreBar {
  meter: HTMLElement;
  value: HTMLElement;
}

export class CpuPanel {
  private readonly total = byId('cpu-total');
  private readonly totalMeter = byId('cpu-meter');
  private readonly coreList = byId('cpu-cores');
  private readonly loads = [byId('cpu-load-1'), byId('cpu-load-5'), byId('cpu-load-15')] as const;
  private cores: CoreBar[] = [];

  update(cpu: CpuInfo): void {
    this.total.textContent = formatPercent(cpu.percent);
    setMeter(this.totalMeter, cpu.percent);
    if (this.cores.length !== cpu.perCore.length) this.buildCores(cpu.perCore.length);
    cpu.perCore.forEach((percent, index) => {
      const core = this.cores[index];
      if (core === undefined) return;
      setMeter(core.meter, percent);
      core.value.textContent = formatPercent(percent);
    });
    this.loads.forEach((node, index) => (node.textContent = formatLoad(cpu.load[index] ?? 0)));
  }

  private buildCores(count: number): void {
    const rows: HTMLElement[] = [];
    this.cores = Array.from({ length: count }, (_, index) => {
      const meter = createMeter('meter-thin');
      meter.setAttribute('aria-label', `core ${index}`);
      const value = element('span', 'core-value');
      const row = element('li', 'core');
      row.append(element('span', 'core-label', String(index)), meter, value);
      rows.push(row);
      return { meter, value };
    });
    this.coreList.replaceChildren(...rows);
  }
}
