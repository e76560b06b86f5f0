// Listening ports reachable from outside the machine (the server already left out loopback-only ones).
import type { ListeningPort } from '../browser.js';
import { byId, element } from '../../../ui/common/dom.js';
import { fillTableBody, tableRow } from './table-rows.js';

const cellClasses = ['number', 'address', ''];

export class PortsTable {
  private readonly body = byId<HTMLTableSectionElement>('ports-body');
  private readonly count = byId('ports-count');

  update(ports: readonly ListeningPort[]): void {
    fillTableBody(this.body, ports.map(portRow), 'Nothing listens beyond localhost');
    this.count.textContent = ports.length === 1 ? '1 port' : `${ports.length} ports`;
  }
}

function portRow(port: ListeningPort): HTMLTableRowElement {
  return tableRow([String(port.port), port.address, processCell(port)], cellClasses);
}

function processCell(port: ListeningPort): Node | string {
  if (port.process !== '') return port.process;
  // The socket belongs to another user's process, which the server may not inspect.
  const unknown = element('span', 'muted', 'unknown');
  unknown.title = 'the owning process is not readable without more privileges';
  return unknown;
}
