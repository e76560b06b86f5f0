// Machine and OS: what this host is. Everything but the uptime is fixed, but rewriting a few text
// nodes per event costs nothing.
import type { MachineInfo } from '../browser.js';
import { byId } from '../../../ui/common/dom.js';
import { formatBytes, formatUptime } from './format.js';

export class MachinePanel {
  private readonly hostname = byId('machine-hostname');
  private readonly os = byId('machine-os');
  private readonly kernel = byId('machine-kernel');
  private readonly arch = byId('machine-arch');
  private readonly cpuModel = byId('machine-cpu');
  private readonly cores = byId('machine-cores');
  private readonly memory = byId('machine-memory');
  private readonly uptime = byId('machine-uptime');

  update(machine: MachineInfo): void {
    this.hostname.textContent = machine.hostname;
    this.os.textContent = machine.os;
    this.kernel.textContent = machine.kernel;
    this.arch.textContent = machine.arch;
    this.cpuModel.textContent = machine.cpuModel;
    this.cpuModel.title = machine.cpuModel;
    this.cores.textContent = `${machine.physicalCores} physical / ${machine.logicalCores} logical`;
    this.memory.textContent = formatBytes(machine.totalMemoryBytes);
    this.uptime.textContent = formatUptime(machine.uptimeSeconds);
  }
}
