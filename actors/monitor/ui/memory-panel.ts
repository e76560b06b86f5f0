// Memory: used of total with a bar, swap only when the machine has some, and on macOS the
// active/wired/compressed split that makes up "used" there.
import type { MemoryInfo } from '../browser.js';
import { byId } from '../../../ui/common/dom.js';
import { formatBytes, formatPercent } from './format.js';
import { setMeter } from './meter.js';

export class MemoryPanel {
  private readonly percent = byId('memory-percent');
  private readonly meter = byId('memory-meter');
  private readonly used = byId('memory-used');
  private readonly available = byId('memory-available');
  private readonly total = byId('memory-total');
  private readonly swap = byId('swap');
  private readonly swapPercent = byId('swap-percent');
  private readonly swapMeter = byId('swap-meter');
  private readonly swapUsed = byId('swap-used');
  private readonly breakdown = byId('memory-breakdown');
  private readonly active = byId('memory-active');
  private readonly wired = byId('memory-wired');
  private readonly compressed = byId('memory-compressed');

  update(memory: MemoryInfo): void {
    this.percent.textContent = formatPercent(memory.percent);
    setMeter(this.meter, memory.percent);
    this.used.textContent = formatBytes(memory.usedBytes);
    this.available.textContent = formatBytes(memory.availableBytes);
    this.total.textContent = formatBytes(memory.totalBytes);

    this.swap.hidden = memory.swap === null;
    if (memory.swap !== null) {
      this.swapPercent.textContent = formatPercent(memory.swap.percent);
      setMeter(this.swapMeter, memory.swap.percent);
      this.swapUsed.textContent = `${formatBytes(memory.swap.usedBytes)} / ${formatBytes(memory.swap.totalBytes)}`;
    }

    this.breakdown.hidden = memory.breakdown === null;
    if (memory.breakdown !== null) {
      this.active.textContent = formatBytes(memory.breakdown.activeBytes);
      this.wired.textContent = formatBytes(memory.breakdown.wiredBytes);
      this.compressed.textContent = formatBytes(memory.breakdown.compressedBytes);
    }
  }
}
