// The sampler: cheap counters (CPU, memory) every interval for the history; the expensive scans
// (processes, containers, ports) only while someone watches the stream or has just asked for a
// snapshot, so an idle dashboard costs next to nothing.
import type { Clock } from '../../../src/actor/clock.js';
import { containerVmProcessNames, type ContainerTopEntry } from './containers.js';
import { cpuUsage, type CoreTimes, type CpuUsage } from './cpu.js';
import { DeviceSampler } from './devices.js';
import { HistoryWindow } from './history.js';
import type { MemoryFigures } from './memory.js';
import { identify, type ProcessIdentity } from './process-names.js';
import { processTable, type ProcessSample } from './process-table.js';
import type { SamplerFigures } from './sampler-figures.js';
import type { ContainerReading } from './probes/container-cli.js';
import type { ProcessReading, StaticMachineInfo, SystemProbe } from './probes/probe.js';
import type { ContainerProcess, ContainerRuntimeStatus, ListeningPort, ServedSnapshot, Snapshot, SnapshotJson } from './protocol.js';

export interface SamplerOptions {
  intervalMs: number;
  historySeconds: number;
  topProcesses: number;
  /** Keep scanning this long after the last snapshot request, so a poller gets fresh data cheaply. */
  askedGraceMs: number;
  /** Containers change rarely and their CLI is costly to run: read them at most this often. */
  containerIntervalMs: number;
  /** With no runtime answering, look for one again this often: each look starts the runtime's CLI. */
  containerRetryMs: number;
  /**
   * Listening sockets are read at most this often: the kernel walks its whole TCP hash table to print
   * /proc/net/tcp, 5-10 ms of CPU a read on a 24 GiB machine however few sockets there are; read
   * every interval, that alone was a third of the sampler's cost.
   */
  portsIntervalMs: number;
  /** The span of the first CPU reading, taken at start. */
  firstSampleMs: number;
}

export interface SamplerDependencies {
  probe: SystemProbe;
  containers: { read(): Promise<ContainerReading> };
  runtimeVersion: (runtime: string, exe: string) => string;
  clock: Clock;
  uptimeSeconds: () => number;
  loadAverage: () => [number, number, number];
  /** Receives every full snapshot while the sampler is active. */
  publish: (snapshot: SnapshotJson) => void;
  /** Told what each tick cost, when metrics are on. */
  figures?: SamplerFigures;
}

export class Sampler {
  private machineInfo: StaticMachineInfo | undefined;
  private previousTimes: CoreTimes[] = [];
  private cpu: CpuUsage = { percent: 0, perCore: [] };
  private memory: MemoryFigures | undefined;
  private readonly cpuHistory: HistoryWindow;
  private readonly memoryHistory: HistoryWindow;
  private readonly devices: DeviceSampler;
  private watchers = 0;
  private lastAskedAt = Number.NEGATIVE_INFINITY;
  private latest: { json: SnapshotJson; at: number } | undefined;
  /** The last snapshot published: a tick that joins a scan already published must not push it again. */
  private published: SnapshotJson | undefined;
  private scanning: Promise<SnapshotJson> | undefined;
  private containerReading: { reading: ContainerReading; at: number } | undefined;
  private portsReading: { ports: ListeningPort[]; at: number } | undefined;
  private stopTicking: (() => void) | undefined;
  /**
   * Names by command line: a process keeps its argv array between readings (the probe caches it),
   * so its name is worked out once, not every interval.
   */
  private readonly identities = new WeakMap<readonly string[], ProcessIdentity>();

  constructor(
    private readonly options: SamplerOptions,
    private readonly dependencies: SamplerDependencies,
  ) {
    const points = Math.max(1, Math.round((options.historySeconds * 1000) / options.intervalMs));
    this.cpuHistory = new HistoryWindow(points);
    this.memoryHistory = new HistoryWindow(points);
    this.devices = new DeviceSampler(points);
  }

  async start(): Promise<void> {
    this.machineInfo = await this.dependencies.probe.machine();
    this.previousTimes = this.dependencies.probe.coreTimes();
    // Until the first short reading lands, the figures are the averages since boot; the start is not
    // held up for it (the fronts wait for every actor to be ready).
    this.cpu = cpuUsage(
      this.previousTimes.map(() => ({ user: 0, nice: 0, sys: 0, idle: 0, irq: 0 })),
      this.previousTimes,
    );
    this.memory = await this.dependencies.probe.memory();
    void this.dependencies.clock.sleep(this.options.firstSampleMs).then(() => this.sampleCounters());
    this.stopTicking = this.dependencies.clock.every(this.options.intervalMs, () => void this.tick());
  }

  stop(): void {
    this.stopTicking?.();
  }

  setWatchers(count: number): void {
    this.watchers = count;
  }

  /** The latest full snapshot if it is from this interval, else a new one. */
  async snapshot(): Promise<SnapshotJson> {
    const now = this.dependencies.clock.now();
    this.lastAskedAt = now;
    if (this.latest !== undefined && now - this.latest.at < this.options.intervalMs) return this.latest.json;
    return this.fullScan();
  }

  get active(): boolean {
    return this.watchers > 0 || this.dependencies.clock.now() - this.lastAskedAt < this.options.askedGraceMs;
  }

  /** One interval: cheap counters always, a full scan published while active. */
  async tick(): Promise<void> {
    await this.sampleCounters();
    if (!this.active) return;
    // A scan slower than the interval (a loaded host) is joined by the next tick; pushed twice, the
    // viewers would get one snapshot as two samples (CI saw the same timestamp twice in a row).
    const json = await this.fullScan();
    if (json === this.published) return;
    this.published = json;
    this.dependencies.publish(json);
  }

  private async sampleCounters(): Promise<void> {
    const started = performance.now();
    const times = this.dependencies.probe.coreTimes();
    this.cpu = cpuUsage(this.previousTimes, times);
    this.previousTimes = times;
    this.memory = await this.dependencies.probe.memory();
    const { probe } = this.dependencies;
    const filesystems = probe.filesystems();
    const disks = probe.diskCounters();
    const interfaces = probe.interfaceCounters();
    const t = this.dependencies.clock.now() / 1000;
    this.cpuHistory.push({ t, v: this.cpu.percent });
    this.memoryHistory.push({ t, v: percent(this.memory.usedBytes, this.memory.totalBytes) });
    this.devices.sample(t, { filesystems, disks, interfaces });
    this.dependencies.figures?.countersRead((performance.now() - started) / 1000);
  }

  private fullScan(): Promise<SnapshotJson> {
    this.scanning ??= this.scan().finally(() => {
      this.scanning = undefined;
    });
    return this.scanning;
  }

  private async scan(): Promise<SnapshotJson> {
    // A cost, not a schedule: measured on the monotonic clock whatever clock drives the ticks.
    const started = performance.now();
    const { probe, clock } = this.dependencies;
    const [readings, network, containers] = await Promise.all([probe.processes(), this.readPorts(), this.readContainers()]);
    const machine = this.machineInfo ?? (await probe.machine());
    const memory = this.memory ?? (await probe.memory());
    const inContainer = new Map<number, ContainerTopEntry & { container: string; image: string }>(containers.processes.map((entry) => [entry.pid, entry]));
    const byPid = new Map<number, ProcessReading>();
    for (const reading of readings) byPid.set(reading.pid, reading);
    const samples = this.processSamples(readings, byPid, inContainer);
    const snapshot: Snapshot = {
      timestamp: clock.now() / 1000,
      machine: { ...machine, uptimeSeconds: Math.round(this.dependencies.uptimeSeconds()), containerRuntime: containers.status },
      cpu: { percent: this.cpu.percent, perCore: this.cpu.perCore, load: this.dependencies.loadAverage(), history: this.cpuHistory.values() },
      memory: {
        totalBytes: memory.totalBytes,
        usedBytes: memory.usedBytes,
        availableBytes: memory.availableBytes,
        percent: percent(memory.usedBytes, memory.totalBytes),
        swap: memory.swap === null ? null : { ...memory.swap, percent: percent(memory.swap.usedBytes, memory.swap.totalBytes) },
        breakdown: memory.breakdown,
        history: this.memoryHistory.values(),
      },
      filesystems: this.devices.filesystems(),
      disks: this.devices.disks(),
      interfaces: this.devices.interfaces(),
      temperatures: probe.temperatures(),
      processes: processTable(samples, memory.totalBytes, this.options.topProcesses, this.dependencies.runtimeVersion),
      containers: containers.processes.map((entry): ContainerProcess => {
        const reading = byPid.get(entry.pid);
        return {
          container: entry.container,
          image: entry.image,
          pid: entry.pid,
          user: entry.user,
          command: entry.command,
          cpuPercent: round(reading?.cpuPercent ?? 0),
          memoryBytes: reading?.memoryBytes ?? 0,
        };
      }),
      network,
    };
    const runtimeKey = containers.status.available ? containers.status.name : 'docker';
    const served: ServedSnapshot = { ...snapshot, [runtimeKey]: snapshot.containers };
    const json = JSON.stringify(served) as SnapshotJson;
    this.latest = { json, at: clock.now() };
    this.dependencies.figures?.scanned((performance.now() - started) / 1000, readings.length);
    return json;
  }

  private processSamples(
    readings: readonly ProcessReading[],
    byPid: ReadonlyMap<number, ProcessReading>,
    inContainer: ReadonlyMap<number, { container: string }>,
  ): ProcessSample[] {
    const identityOf = (reading: ProcessReading, depth = 0): ProcessIdentity => {
      let identity = this.identities.get(reading.argv);
      if (identity === undefined) {
        // A worker without a script of its own takes its parent's name; parents are few levels up.
        const parent = depth < 8 ? byPid.get(reading.ppid) : undefined;
        identity = identify(reading, parent === undefined ? undefined : identityOf(parent, depth + 1));
        this.identities.set(reading.argv, identity);
      }
      return identity;
    };
    const containersPresent = inContainer.size > 0;
    const samples: ProcessSample[] = [];
    for (const reading of readings) {
      const identity = identityOf(reading);
      if (containersPresent && containerVmProcessNames.has(identity.name)) continue;
      const container = inContainer.get(reading.pid);
      samples.push({
        pid: reading.pid,
        ppid: reading.ppid,
        identity,
        source: container?.container ?? reading.user,
        container: container !== undefined,
        cpuPercent: reading.cpuPercent,
        memoryBytes: reading.memoryBytes,
        exe: reading.exe,
      });
    }
    return samples;
  }

  private async readPorts(): Promise<ListeningPort[]> {
    const now = this.dependencies.clock.now();
    if (this.portsReading === undefined || now - this.portsReading.at >= this.options.portsIntervalMs) {
      this.portsReading = { ports: await this.dependencies.probe.listeningPorts(), at: now };
    }
    return this.portsReading.ports;
  }

  private async readContainers(): Promise<ContainerReading> {
    const now = this.dependencies.clock.now();
    const every = this.containerReading?.reading.status.available === false ? this.options.containerRetryMs : this.options.containerIntervalMs;
    if (this.containerReading === undefined || now - this.containerReading.at >= every) {
      this.containerReading = { reading: await this.dependencies.containers.read(), at: now };
    }
    return this.containerReading.reading;
  }
}

export function unavailableContainers(reason: string): ContainerReading {
  const status: ContainerRuntimeStatus = { available: false, reason };
  return { status, processes: [] };
}

function percent(part: number, whole: number): number {
  return whole > 0 ? round((part / whole) * 100) : 0;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
