// Linux: everything from /proc, read synchronously: the sampler has its own thread, and a blocking
// read of a /proc file costs a fraction of an asynchronous one (see proc-stat.ts for the figures).
// Names and command lines are read once per process; sockets are mapped to processes only when an
// unknown one appears.
import { readdirSync, readFileSync, readlinkSync, statfsSync } from 'node:fs';
import { cpus, hostname, machine, release, totalmem } from 'node:os';
import { parseProcStatCores } from '../cpu.js';
import { parseMeminfo, type MemoryFigures } from '../memory.js';
import { isLoopbackOnly } from '../../../../src/net/address.js';
import { parseNetDev, type InterfaceCounters } from '../interfaces.js';
import { listeningPorts, parseProcNetTcp, type ListeningSocket } from '../ports.js';
import { identify, type ProcessFacts } from '../process-names.js';
import type { ListeningPort, TemperatureSensor } from '../protocol.js';
import { dataMounts, filesystemUsage, parseDiskstats, parseMountinfo, type DiskCounters, type Mount } from '../storage.js';
import { HwmonReader } from './hwmon.js';
import type { FilesystemReading, ProcessReading, StaticMachineInfo, SystemProbe } from './probe.js';
import { ProcStatReader } from './proc-stat.js';

interface CachedFacts extends ProcessFacts {
  uid: number;
  startTicks: number;
}

export class LinuxProbe implements SystemProbe {
  private readonly stats: ProcStatReader;
  private readonly facts = new Map<number, CachedFacts>();
  private users = new Map<number, string>();
  private readonly socketOwners = new Map<number, { pid: number; name: string }>();
  /** Sockets whose owner was searched for and not found (another PID namespace): not searched again. */
  private readonly ownerless = new Set<number>();

  private readonly hwmon: HwmonReader;
  /** The data mounts of the last mountinfo text read. */
  private mounts: { text: string; mounts: readonly Mount[] } | undefined;

  /** `procRoot` and `sysRoot` are /proc and /sys on a live machine, fixture trees in tests. */
  constructor(
    private readonly procRoot = '/proc',
    sysRoot = '/sys',
  ) {
    this.stats = new ProcStatReader(procRoot);
    this.hwmon = new HwmonReader(sysRoot);
  }

  machine(): Promise<StaticMachineInfo> {
    const processors = cpus();
    return Promise.resolve({
      hostname: hostname(),
      os: this.osName(),
      kernel: release(),
      platform: 'linux',
      arch: machine(),
      cpuModel: processors[0]?.model.trim() ?? 'unknown',
      physicalCores: this.physicalCores(processors.length),
      logicalCores: processors.length,
      totalMemoryBytes: totalmem(),
    });
  }

  coreTimes() {
    return parseProcStatCores(this.readOrEmpty('stat'));
  }

  memory(): Promise<MemoryFigures> {
    return Promise.resolve(parseMeminfo(readFileSync(`${this.procRoot}/meminfo`, 'utf8')));
  }

  processes(): Promise<ProcessReading[]> {
    const stats = this.stats.read(this.pids(), Date.now());
    const readings: ProcessReading[] = [];
    for (const stat of stats) {
      const { pid } = stat;
      const facts = this.factsOf(pid, stat.startTicks);
      if (facts === undefined || facts.argv.length === 0) continue; // gone, or a kernel thread
      // Named fields, not a spread of the cached facts: copying them by spread was a sixth of a scan's CPU.
      readings.push({
        pid,
        ppid: stat.ppid,
        comm: facts.comm,
        exe: facts.exe,
        argv: facts.argv,
        user: this.userName(facts.uid),
        cpuPercent: stat.cpuPercent,
        memoryBytes: stat.rssBytes,
      });
    }
    if (this.facts.size > stats.length) for (const pid of this.facts.keys()) if (!this.stats.has(pid)) this.facts.delete(pid);
    return Promise.resolve(readings);
  }

  listeningPorts(): Promise<ListeningPort[]> {
    const sockets: ListeningSocket[] = [];
    for (const protocol of ['tcp', 'tcp6'] as const) sockets.push(...parseProcNetTcp(this.readOrEmpty(`net/${protocol}`), protocol));
    const shown = new Set(sockets.filter((socket) => !isLoopbackOnly(socket.host)).map((socket) => socket.inode));
    for (const inode of this.socketOwners.keys()) if (!shown.has(inode)) this.socketOwners.delete(inode);
    for (const inode of this.ownerless) if (!shown.has(inode)) this.ownerless.delete(inode);
    // Mapping sockets to processes means reading every process's fd table; do it only when a
    // listed socket appears whose owner has not been looked for yet.
    const unknown = new Set([...shown].filter((inode) => !this.socketOwners.has(inode) && !this.ownerless.has(inode)));
    if (unknown.size > 0) {
      this.findSocketOwners(unknown);
      for (const inode of unknown) if (!this.socketOwners.has(inode)) this.ownerless.add(inode);
    }
    return Promise.resolve(listeningPorts(sockets, this.socketOwners));
  }

  filesystems(): FilesystemReading[] {
    // The mount table changes rarely: the same text gives the same mounts, parsed once.
    const text = this.readOrEmpty('self/mountinfo');
    if (this.mounts?.text !== text) this.mounts = { text, mounts: dataMounts(parseMountinfo(text)) };
    const readings: FilesystemReading[] = [];
    for (const mount of this.mounts.mounts) {
      let stats;
      try {
        stats = statfsSync(mount.mountPoint);
      } catch {
        continue; // unmounted since the table was read, or not ours to see
      }
      // A filesystem with no blocks holds no data (df leaves it out the same way).
      if (stats.blocks === 0) continue;
      readings.push({ mountPoint: mount.mountPoint, device: mount.source, type: mount.type, ...filesystemUsage(stats) });
    }
    return readings;
  }

  diskCounters(): DiskCounters[] {
    return parseDiskstats(this.readOrEmpty('diskstats'));
  }

  interfaceCounters(): InterfaceCounters[] {
    return parseNetDev(this.readOrEmpty('net/dev'));
  }

  temperatures(): TemperatureSensor[] {
    return this.hwmon.read();
  }

  /** The numeric entries of /proc, in one pass (no filtered and mapped copies of the listing). */
  private pids(): number[] {
    const pids: number[] = [];
    for (const name of readdirSync(this.procRoot)) {
      const first = name.charCodeAt(0);
      if (first < 48 || first > 57) continue;
      const pid = Number(name);
      if (Number.isInteger(pid)) pids.push(pid);
    }
    return pids;
  }

  private findSocketOwners(wanted: ReadonlySet<number>): void {
    for (const pid of this.pids()) {
      let fds: string[];
      try {
        fds = readdirSync(`${this.procRoot}/${pid}/fd`);
      } catch {
        continue;
      }
      for (const fd of fds) {
        let target: string;
        try {
          target = readlinkSync(`${this.procRoot}/${pid}/fd/${fd}`);
        } catch {
          continue;
        }
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        if (inode === undefined || !wanted.has(Number(inode))) continue;
        const facts = this.facts.get(pid) ?? this.factsOf(pid, -1);
        this.socketOwners.set(Number(inode), { pid, name: facts === undefined ? '' : identify(facts).name });
      }
    }
  }

  private factsOf(pid: number, startTicks: number): CachedFacts | undefined {
    const cached = this.facts.get(pid);
    // The same pid with another start time is another process.
    if (cached !== undefined && (cached.startTicks === startTicks || startTicks < 0)) return cached;
    const dir = `${this.procRoot}/${pid}`;
    try {
      const status = readFileSync(`${dir}/status`, 'utf8');
      const facts: CachedFacts = {
        pid,
        ppid: Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0),
        comm: readFileSync(`${dir}/comm`, 'utf8').trim(),
        exe: this.readLinkOrEmpty(`${dir}/exe`),
        argv: readFileSync(`${dir}/cmdline`, 'utf8')
          .split('\0')
          .filter((arg, index, all) => arg !== '' || index < all.length - 1),
        uid: Number(/^Uid:\s+(\d+)/m.exec(status)?.[1] ?? -1),
        startTicks,
      };
      this.facts.set(pid, facts);
      return facts;
    } catch {
      return undefined;
    }
  }

  private userName(uid: number): string {
    if (!this.users.has(uid)) this.users = readPasswd();
    return this.users.get(uid) ?? String(uid);
  }

  private readOrEmpty(path: string): string {
    try {
      return readFileSync(`${this.procRoot}/${path}`, 'utf8');
    } catch {
      return '';
    }
  }

  private readLinkOrEmpty(path: string): string {
    try {
      return readlinkSync(path);
    } catch {
      return '';
    }
  }

  private osName(): string {
    let text = '';
    try {
      text = readFileSync('/etc/os-release', 'utf8');
    } catch {
      // Not every system has it; the kernel release stands in.
    }
    return /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(text)?.[1] ?? `Linux ${release()}`;
  }

  private physicalCores(logical: number): number {
    const cores = new Set<string>();
    for (const block of this.readOrEmpty('cpuinfo').split('\n\n')) {
      const physical = /^physical id\s*:\s*(\d+)/m.exec(block)?.[1];
      const core = /^core id\s*:\s*(\d+)/m.exec(block)?.[1];
      if (physical !== undefined && core !== undefined) cores.add(`${physical}:${core}`);
    }
    return cores.size > 0 ? cores.size : logical;
  }
}

function readPasswd(): Map<number, string> {
  const users = new Map<number, string>();
  let text = '';
  try {
    text = readFileSync('/etc/passwd', 'utf8');
  } catch {
    return users;
  }
  for (const line of text.split('\n')) {
    const [name, , uid] = line.split(':');
    if (name !== undefined && uid !== undefined && name !== '') users.set(Number(uid), name);
  }
  return users;
}
