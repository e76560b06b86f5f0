// What the sampler reads from the operating system, behind one interface per platform:
// linux.ts reads /proc, darwin.ts uses ps-list and the system's own tools.
import type { CoreTimes } from '../cpu.js';
import type { MemoryFigures } from '../memory.js';
import type { ProcessFacts } from '../process-names.js';
import type { InterfaceCounters } from '../interfaces.js';
import type { DiskCounters, FilesystemUsage } from '../storage.js';
import type { ListeningPort, MachineInfo, TemperatureSensor } from '../protocol.js';

export type StaticMachineInfo = Omit<MachineInfo, 'containerRuntime' | 'uptimeSeconds'>;

export interface ProcessReading extends ProcessFacts {
  user: string;
  /** Percent of one core since the previous reading of this process. */
  cpuPercent: number;
  memoryBytes: number;
}

export interface FilesystemReading extends FilesystemUsage {
  mountPoint: string;
  device: string;
  type: string;
}

export interface SystemProbe {
  machine(): Promise<StaticMachineInfo>;
  coreTimes(): CoreTimes[];
  memory(): Promise<MemoryFigures>;
  /** User processes (kernel threads left out). */
  processes(): Promise<ProcessReading[]>;
  listeningPorts(): Promise<ListeningPort[]>;
  /** Mounted filesystems that hold data, one per device; empty where the platform offers no reading. */
  filesystems(): FilesystemReading[];
  /** Cumulative bytes per block device. */
  diskCounters(): DiskCounters[];
  /** Cumulative bytes, errors and drops per network interface. */
  interfaceCounters(): InterfaceCounters[];
  temperatures(): TemperatureSensor[];
}
