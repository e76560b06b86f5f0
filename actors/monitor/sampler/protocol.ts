// The dashboard's data: what the sampler measures and the monitor front serves as /api/snapshot and
// pushes on /api/stream. Types only; the browser page imports them too.

export interface MachineInfo {
  hostname: string;
  /** The distribution or product name and version: `Debian GNU/Linux 12 (bookworm)`, `macOS 15.1`. */
  os: string;
  /** Kernel release: `6.1.0-26-amd64`. */
  kernel: string;
  platform: string;
  /** `x86_64`, `arm64`. */
  arch: string;
  cpuModel: string;
  physicalCores: number;
  logicalCores: number;
  totalMemoryBytes: number;
  uptimeSeconds: number;
  /** The container runtime CLI found on PATH, or why the containers panel is empty. */
  containerRuntime: ContainerRuntimeStatus;
}

export type ContainerRuntimeStatus = { available: true; name: 'docker' | 'podman'; version: string } | { available: false; reason: string };

export interface CpuInfo {
  /** Aggregate busy share of all logical cores, 0-100. */
  percent: number;
  /** Busy share of each logical core, 0-100, in core order. */
  perCore: number[];
  /** Load average over 1, 5 and 15 minutes. */
  load: [number, number, number];
  /** Aggregate percent per sample over the history window, oldest first (see HistoryPoint). */
  history: HistoryPoint[];
}

export interface HistoryPoint {
  /** Seconds since the epoch. */
  t: number;
  /** 0-100. */
  v: number;
}

export interface MemoryInfo {
  totalBytes: number;
  /** Used by programs: total minus what the kernel can hand out without swapping (file cache excluded). */
  usedBytes: number;
  availableBytes: number;
  percent: number;
  /** Null when no swap is configured. */
  swap: { totalBytes: number; usedBytes: number; percent: number } | null;
  /** macOS only: used = active (app) + wired + compressed. */
  breakdown: { activeBytes: number; wiredBytes: number; compressedBytes: number } | null;
  history: HistoryPoint[];
}

export interface RuntimeTag {
  /** `python`, `node`, `ruby`, `perl`, `java`. */
  name: string;
  /** `3.11.2`; empty until it is known. */
  version: string;
}

export interface ProcessRow {
  /** Script, module or program name; one row may stand for several processes (`count`). */
  name: string;
  /** Processes grouped into this row: same parent and same name. */
  count: number;
  pids: number[];
  /** Sum over the row, in percent of one core. */
  cpuPercent: number;
  /** Resident memory, summed over the row. */
  memoryBytes: number;
  /** Share of total memory, 0-100. */
  memoryPercent: number;
  /** The user name, or the container name when `container` is true. */
  source: string;
  container: boolean;
  runtime: RuntimeTag | null;
}

export interface ContainerProcess {
  container: string;
  image: string;
  pid: number;
  user: string;
  command: string;
  cpuPercent: number;
  memoryBytes: number;
}

export interface ListeningPort {
  port: number;
  /** The full local address, `0.0.0.0:8080` or `[::]:22`. */
  address: string;
  protocol: 'tcp' | 'tcp6';
  /** Name of the process holding the socket; empty when it cannot be read (another user's process without privileges). */
  process: string;
  pid: number | null;
}

export interface FilesystemInfo {
  mountPoint: string;
  /** `/dev/sda1`, or what the mount table names the source (`server:/export`, `overlay`). */
  device: string;
  /** `ext4`, `xfs`, `nfs4`. */
  type: string;
  usedBytes: number;
  totalBytes: number;
  /** Used of what users can fill (used plus available), as `df` counts it: reserved blocks are neither. */
  percent: number;
  history: HistoryPoint[];
}

export interface DiskInfo {
  /** The block device's kernel name: `sda`, `nvme0n1`, `vda1`. */
  name: string;
  readBytesPerSecond: number;
  writeBytesPerSecond: number;
  history: DiskHistoryPoint[];
}

export interface DiskHistoryPoint {
  /** Seconds since the epoch. */
  t: number;
  /** Bytes a second. */
  read: number;
  write: number;
}

export interface InterfaceInfo {
  name: string;
  loopback: boolean;
  receiveBytesPerSecond: number;
  transmitBytesPerSecond: number;
  /** Counts since the interface came up, as /proc/net/dev keeps them. */
  receiveErrors: number;
  transmitErrors: number;
  receiveDrops: number;
  transmitDrops: number;
  history: InterfaceHistoryPoint[];
}

export interface InterfaceHistoryPoint {
  /** Seconds since the epoch. */
  t: number;
  /** Bytes a second. */
  receive: number;
  transmit: number;
}

export interface TemperatureSensor {
  /** The hwmon chip's name: `coretemp`, `k10temp`, `nvme`, `acpitz`. */
  chip: string;
  /** The sensor's label (`Package id 0`, `Tctl`), or its file name (`temp1`) when the driver gives none. */
  label: string;
  celsius: number;
  /** The driver's critical threshold, null when it states none. */
  criticalCelsius: number | null;
}

export interface Snapshot {
  /** Seconds since the epoch, fractional. */
  timestamp: number;
  machine: MachineInfo;
  cpu: CpuInfo;
  memory: MemoryInfo;
  /** Mounted filesystems that hold data: pseudo filesystems, tmpfs and second mounts of one device left out. */
  filesystems: FilesystemInfo[];
  /** Block devices that have done any I/O since boot. */
  disks: DiskInfo[];
  /** Network interfaces by name, loopback last. */
  interfaces: InterfaceInfo[];
  /** hwmon temperature sensors; empty on a machine that has none (most VMs). */
  temperatures: TemperatureSensor[];
  /** Top rows, sorted by CPU percent plus memory percent, highest first. */
  processes: ProcessRow[];
  containers: ContainerProcess[];
  network: ListeningPort[];
}

/**
 * The snapshot as served: `containers` is given a second time under the runtime's own name (`docker`,
 * or `podman` when that is the CLI found), the key the original dashboard's clients read.
 */
export type ServedSnapshot = Snapshot & { docker?: ContainerProcess[]; podman?: ContainerProcess[] };

/** A Snapshot as JSON text: serialised once in the sampler, then passed on and served as it is. */
export type SnapshotJson = string & { readonly __snapshotJson: true };

/** What the sampler offers the monitor front. */
export interface SamplerApi {
  /** A full snapshot, scanning processes, containers and ports now if the last scan is stale. */
  snapshot(): Promise<SnapshotJson>;
  /**
   * How many clients watch the stream of the front called `front`: while any front has watchers,
   * every tick is a full scan published to the fronts.
   */
  setWatchers(front: string, count: number): Promise<void>;
}

/** The sampler's slice of the monitor role's config. */
export interface SamplerConfig {
  intervalMs: number;
  historySeconds: number;
  topProcesses: number;
  /** Read container processes through docker/podman; false leaves the panel empty with a reason. */
  containers: boolean;
  /** Show container processes' command lines with their arguments (where passwords are often given); false shows the program only. */
  showContainerArgs: boolean;
}
