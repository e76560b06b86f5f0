// What hostwatch's page (ui/) shares with the monitor role: the sampler's snapshot and its parts.
export type {
  ContainerProcess,
  ContainerRuntimeStatus,
  CpuInfo,
  DiskInfo,
  FilesystemInfo,
  HistoryPoint,
  InterfaceInfo,
  ListeningPort,
  MachineInfo,
  MemoryInfo,
  ProcessRow,
  RuntimeTag,
  Snapshot,
  TemperatureSensor,
} from './sampler/protocol.js';
