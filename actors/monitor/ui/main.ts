// The monitor dashboard: follows the snapshot stream and hands each snapshot to the panels.
import type { Snapshot } from '../browser.js';
import { followStream, type ConnectionState } from './connection.js';
import { ContainersPanel } from './containers-panel.js';
import { CpuPanel } from './cpu-panel.js';
import { FilesystemsPanel } from './filesystems-panel.js';
import { byId } from '../../../ui/common/dom.js';
import { formatClock } from './format.js';
import { HistoryGraph } from './history-graph.js';
import { MachinePanel } from './machine-panel.js';
import { MemoryPanel } from './memory-panel.js';
import { PortsTable } from './ports-table.js';
import { ProcessTable } from './process-table.js';
import { DisksPanel, InterfacesPanel } from './rates-panel.js';
import { TemperaturesPanel } from './temperatures-panel.js';

const stateLabels: Record<ConnectionState, string> = { connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting…' };

const hostTitle = byId('host-title');
const updated = byId<HTMLTimeElement>('updated');
const connectionLabel = byId('connection-label');
const connectionDot = document.querySelector<HTMLElement>('.connection-dot');
const machine = new MachinePanel();
const cpu = new CpuPanel();
const memory = new MemoryPanel();
const cpuHistory = new HistoryGraph('cpu');
const memoryHistory = new HistoryGraph('memory');
const filesystems = new FilesystemsPanel();
const disks = new DisksPanel();
const interfaces = new InterfacesPanel();
const temperatures = new TemperaturesPanel();
const processes = new ProcessTable();
const containers = new ContainersPanel();
const ports = new PortsTable();

/** Restarts the dot's beat (header.css): a class removed and added in one frame would not replay it. */
function beat(): void {
  if (connectionDot === null) return;
  connectionDot.classList.remove('beat');
  void connectionDot.offsetWidth;
  connectionDot.classList.add('beat');
}

function show(snapshot: Snapshot): void {
  beat();
  hostTitle.textContent = snapshot.machine.hostname;
  document.title = `${snapshot.machine.hostname} · hostwatch`;
  updated.textContent = `updated ${formatClock(snapshot.timestamp)}`;
  updated.dateTime = new Date(snapshot.timestamp * 1000).toISOString();
  machine.update(snapshot.machine);
  cpu.update(snapshot.cpu);
  memory.update(snapshot.memory);
  cpuHistory.update(snapshot.cpu.history, snapshot.timestamp);
  memoryHistory.update(snapshot.memory.history, snapshot.timestamp);
  filesystems.update(snapshot.filesystems);
  disks.update(snapshot.disks, snapshot.timestamp);
  interfaces.update(snapshot.interfaces, snapshot.timestamp);
  temperatures.update(snapshot.temperatures);
  processes.update(snapshot.processes);
  containers.update(snapshot.machine.containerRuntime, snapshot.containers);
  ports.update(snapshot.network);
}

followStream('api/stream', {
  snapshot: show,
  state(state) {
    document.body.dataset.connection = state;
    connectionLabel.textContent = stateLabels[state];
  },
});
