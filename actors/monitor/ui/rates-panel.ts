// Disks and network interfaces: per device, its two rates now and a sparkline of their last two
// minutes; an interface also shows its error and drop counts, flagged when any is above zero.
import type { DiskInfo, InterfaceInfo } from '../browser.js';
import { byId, element } from '../../../ui/common/dom.js';
import { formatRate } from './format.js';
import { KeyedList } from './keyed-list.js';
import { createSparkline, type Sparkline } from './sparkline.js';

interface RateView {
  root: HTMLElement;
  name: HTMLElement;
  a: HTMLElement;
  b: HTMLElement;
  note: HTMLElement;
  sparkline: Sparkline;
}

function createRateView(labels: [string, string]): RateView {
  const root = element('li', 'device');
  const name = element('span', 'device-name truncate');
  const a = element('span', 'rate rate-a');
  const b = element('span', 'rate rate-b');
  const rates = element('span', 'rates');
  rates.append(a, b);
  const head = element('div', 'device-head');
  head.append(name, rates);
  const sparkline = createSparkline(labels.join(' and '));
  const note = element('p', 'device-note muted');
  root.append(head, sparkline.root, note);
  a.title = labels[0];
  b.title = labels[1];
  return { root, name, a, b, note, sparkline };
}

export class DisksPanel {
  private readonly empty = byId('disks-empty');
  private now = 0;
  private readonly list = new KeyedList<DiskInfo, RateView>(byId('disks-list'), {
    key: (disk) => disk.name,
    create: () => createRateView(['read', 'write']),
    update: (view, disk) => {
      view.name.textContent = disk.name;
      view.a.textContent = `R ${formatRate(disk.readBytesPerSecond)}`;
      view.b.textContent = `W ${formatRate(disk.writeBytesPerSecond)}`;
      view.note.hidden = true;
      view.sparkline.update(
        disk.history.map((point) => ({ t: point.t, a: point.read, b: point.write })),
        this.now,
      );
    },
  });

  update(disks: readonly DiskInfo[], now: number): void {
    this.now = now;
    this.list.show(disks);
    this.empty.hidden = disks.length > 0;
  }
}

export class InterfacesPanel {
  private readonly empty = byId('interfaces-empty');
  private now = 0;
  private readonly list = new KeyedList<InterfaceInfo, RateView>(byId('interfaces-list'), {
    key: (link) => link.name,
    create: () => createRateView(['receive', 'transmit']),
    update: (view, link) => {
      view.name.textContent = link.name;
      view.a.textContent = `↓ ${formatRate(link.receiveBytesPerSecond)}`;
      view.b.textContent = `↑ ${formatRate(link.transmitBytesPerSecond)}`;
      const errors = link.receiveErrors + link.transmitErrors;
      const drops = link.receiveDrops + link.transmitDrops;
      view.note.hidden = false;
      view.note.textContent = `errors ${errors} · drops ${drops}`;
      view.note.title = `receive: ${link.receiveErrors} errors, ${link.receiveDrops} drops · transmit: ${link.transmitErrors} errors, ${link.transmitDrops} drops`;
      view.note.classList.toggle('device-note-alert', errors + drops > 0);
      view.sparkline.update(
        link.history.map((point) => ({ t: point.t, a: point.receive, b: point.transmit })),
        this.now,
      );
    },
  });

  update(interfaces: readonly InterfaceInfo[], now: number): void {
    this.now = now;
    this.list.show(interfaces);
    this.empty.hidden = interfaces.length > 0;
  }
}
