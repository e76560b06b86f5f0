// Containers: the processes the container runtime lists, or why there are none to list. A missing
// runtime is a normal state of a machine, so its reason is shown as a note, not as an error.
import type { ContainerProcess, ContainerRuntimeStatus } from '../browser.js';
import { byId, element } from '../../../ui/common/dom.js';
import { fillTableBody, tableRow } from './table-rows.js';
import { formatBytes, formatPercent } from './format.js';

const cellClasses = ['', 'command', 'number', 'number'];

export class ContainersPanel {
  private readonly runtime = byId('containers-runtime');
  private readonly reason = byId('containers-reason');
  private readonly table = byId('containers-table');
  private readonly body = byId<HTMLTableSectionElement>('containers-body');

  update(status: ContainerRuntimeStatus, processes: readonly ContainerProcess[]): void {
    this.reason.hidden = status.available;
    this.table.hidden = !status.available;
    if (!status.available) {
      this.runtime.textContent = 'not available';
      this.reason.textContent = status.reason;
      return;
    }
    this.runtime.textContent = `${status.name} ${status.version}`;
    fillTableBody(this.body, processes.map(containerRow), 'No containers running');
  }
}

function containerRow(process: ContainerProcess): HTMLTableRowElement {
  const container = element('span', 'tag tag-container', process.container);
  container.title = process.image;
  const command = element('span', 'truncate', process.command);
  command.title = `${process.command}\nPID ${process.pid} · ${process.user}`;
  return tableRow([container, command, formatPercent(process.cpuPercent), formatBytes(process.memoryBytes)], cellClasses);
}
