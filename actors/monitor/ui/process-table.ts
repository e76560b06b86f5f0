// Top processes, in the order the server sorted them (CPU percent plus memory percent). About thirty
// rows, so the body is simply rebuilt on each event.
import type { ProcessRow } from '../browser.js';
import { byId, element } from '../../../ui/common/dom.js';
import { fillTableBody, tableRow } from './table-rows.js';
import { formatBytes, formatPercent } from './format.js';
import { runtimeTag } from './runtime-tag.js';

const cellClasses = ['name', 'number', 'number', 'source'];

export class ProcessTable {
  private readonly body = byId<HTMLTableSectionElement>('processes-body');
  private readonly count = byId('processes-count');

  update(processes: readonly ProcessRow[]): void {
    fillTableBody(this.body, processes.map(processRow), 'No processes reported');
    this.count.textContent = `top ${processes.length}`;
  }
}

function processRow(process: ProcessRow): HTMLTableRowElement {
  const name = element('span', 'process');
  const pids = `PID ${process.pids.join(', ')}`;
  // A process whose name could not be read still deserves a label a person can look up.
  const label = process.name === '' ? element('span', 'process-name muted', pids) : element('span', 'process-name', process.name);
  label.title = pids;
  name.append(label);
  if (process.count > 1) name.append(element('span', 'process-count', `x${process.count}`));
  if (process.runtime !== null) name.append(runtimeTag(process.runtime));
  const source = process.container ? element('span', 'tag tag-container', process.source) : process.source;
  return tableRow([name, formatPercent(process.cpuPercent), formatBytes(process.memoryBytes), source], cellClasses);
}
