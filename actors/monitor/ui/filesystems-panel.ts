// Filesystems: one bar per mounted filesystem, coloured by fullness as every bar is (usage-level.ts).
import type { FilesystemInfo } from '../browser.js';
import { byId, element } from '../../../ui/common/dom.js';
import { formatBytes, formatPercent } from './format.js';
import { KeyedList } from './keyed-list.js';
import { createMeter, setMeter } from './meter.js';

interface FilesystemView {
  root: HTMLElement;
  name: HTMLElement;
  percent: HTMLElement;
  meter: HTMLElement;
  source: HTMLElement;
  size: HTMLElement;
}

export class FilesystemsPanel {
  private readonly count = byId('filesystems-count');
  private readonly empty = byId('filesystems-empty');
  private readonly list = new KeyedList<FilesystemInfo, FilesystemView>(byId('filesystems-list'), {
    key: (filesystem) => filesystem.mountPoint,
    create: () => {
      const root = element('li', 'device');
      const name = element('span', 'device-name truncate');
      const percent = element('span', 'device-figure');
      const head = element('div', 'device-head');
      head.append(name, percent);
      const meter = createMeter();
      const source = element('span', 'truncate muted');
      const size = element('span');
      const caption = element('p', 'meter-caption');
      caption.append(source, size);
      root.append(head, meter, caption);
      return { root, name, percent, meter, source, size };
    },
    update: (view, filesystem) => {
      view.name.textContent = filesystem.mountPoint;
      view.name.title = filesystem.mountPoint;
      view.percent.textContent = formatPercent(filesystem.percent);
      setMeter(view.meter, filesystem.percent);
      view.meter.setAttribute('aria-label', `${filesystem.mountPoint} used`);
      view.source.textContent = `${filesystem.device} · ${filesystem.type}`;
      view.source.title = view.source.textContent;
      view.size.textContent = `${formatBytes(filesystem.usedBytes)} / ${formatBytes(filesystem.totalBytes)}`;
    },
  });

  update(filesystems: readonly FilesystemInfo[]): void {
    this.list.show(filesystems);
    this.empty.hidden = filesystems.length > 0;
    this.count.textContent = filesystems.length === 1 ? '1 mounted' : `${filesystems.length} mounted`;
  }
}
