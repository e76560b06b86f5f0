// What hostwatch's page (ui/) shares with the monitor role: the sampler's snapshot and its parts.
export type {
  ContainerProcess,
  ContainerRuntimeStatus,
  CpuInfo,
  HistoryPoint,
  ListeningPort,
  MachineInfo,
  MemoryInfo,
  ProcessRow,
  RuntimeTag,
  Snapshot,
} from './sampler/protocol.js';
