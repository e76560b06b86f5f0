// Linux: everything from /proc. Per-process CPU comes from pidusage, which keeps each
// /proc/<pid>/stat open between reads; names and command lines are read once per process.
import { readdir, readFile, readlink } from 'node:fs/promises';
import { cpus, hostname, machine, release, totalmem } from 'node:os';
import pidusage from 'pidusage';
import { parseMeminfo, type MemoryFigures } from '../memory.js';
import { listeningPorts, parseProcNetTcp, type ListeningSocket } from '../ports.js';
import { identify, type ProcessFacts } from '../process-names.js';
import type { ListeningPort } from '../protocol.js';
import type { ProcessReading, StaticMachineInfo, SystemProbe } from './probe.js';

interface CachedFacts extends ProcessFacts {
  uid: number;
  /** pid reuse check: the process start time, as pidusage reports it. */
  startedAt: number;
}

export class LinuxProbe implements SystemProbe {
  private readonly facts = new Map<number, CachedFacts>();
  private users = new Map<number, string>();
  private readonly socketOwners = new Map<number, { pid: number; name: string }>();

  constructor(
    private readonly procRoot = '/proc',
    /** How long pidusage keeps a process's descriptor open without a read: a few sample intervals. */
    private readonly statMaxAgeMs = 30_000,
  ) {}

  async machine(): Promise<StaticMachineInfo> {
    const processors = cpus();
    return {
      hostname: hostname(),
      os: await this.osName(),
      kernel: release(),
      platform: 'linux',
      arch: machine(),
      cpuModel: processors[0]?.model.trim() ?? 'unknown',
      physicalCores: await this.physicalCores(processors.length),
      logicalCores: processors.length,
      totalMemoryBytes: totalmem(),
    };
  }

  coreTimes() {
    return cpus().map((processor) => processor.times);
  }

  async memory(): Promise<MemoryFigures> {
    return parseMeminfo(await readFile(`${this.procRoot}/meminfo`, 'utf8'));
  }

  async processes(): Promise<ProcessReading[]> {
    const pids = (await readdir(this.procRoot)).filter((name) => /^\d+$/.test(name)).map(Number);
    const usage = await pidusage(pids, { maxage: this.statMaxAgeMs });
    const readings: ProcessReading[] = [];
    const alive = new Set<number>();
    for (const pid of pids) {
      const stat = usage[pid];
      if (stat === undefined || stat === null) continue;
      alive.add(pid);
      const facts = await this.factsOf(pid, stat.timestamp - stat.elapsed);
      if (facts === undefined || facts.argv.length === 0) continue; // gone, or a kernel thread
      readings.push({ ...facts, ppid: stat.ppid, user: await this.userName(facts.uid), cpuPercent: stat.cpu, memoryBytes: stat.memory });
    }
    for (const pid of this.facts.keys()) if (!alive.has(pid)) this.facts.delete(pid);
    return readings;
  }

  async listeningPorts(): Promise<ListeningPort[]> {
    const sockets: ListeningSocket[] = [];
    for (const protocol of ['tcp', 'tcp6'] as const) {
      const text = await readFile(`${this.procRoot}/net/${protocol}`, 'utf8').catch(() => '');
      sockets.push(...parseProcNetTcp(text, protocol));
    }
    const inodes = new Set(sockets.map((socket) => socket.inode));
    for (const inode of this.socketOwners.keys()) if (!inodes.has(inode)) this.socketOwners.delete(inode);
    // Mapping sockets to processes means reading every process's fd table; do it only when a
    // listening socket appears whose owner is not known yet.
    if ([...inodes].some((inode) => !this.socketOwners.has(inode))) await this.findSocketOwners(inodes);
    return listeningPorts(sockets, this.socketOwners);
  }

  private async findSocketOwners(wanted: ReadonlySet<number>): Promise<void> {
    const pids = (await readdir(this.procRoot)).filter((name) => /^\d+$/.test(name));
    for (const pid of pids) {
      const fds = await readdir(`${this.procRoot}/${pid}/fd`).catch(() => [] as string[]);
      for (const fd of fds) {
        const target = await readlink(`${this.procRoot}/${pid}/fd/${fd}`).catch(() => '');
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        if (inode === undefined || !wanted.has(Number(inode))) continue;
        const facts = this.facts.get(Number(pid)) ?? (await this.factsOf(Number(pid), 0));
        this.socketOwners.set(Number(inode), { pid: Number(pid), name: facts === undefined ? '' : identify(facts).name });
      }
    }
  }

  private async factsOf(pid: number, startedAt: number): Promise<CachedFacts | undefined> {
    const cached = this.facts.get(pid);
    // The same pid with another start time is another process.
    if (cached !== undefined && Math.abs(cached.startedAt - startedAt) < 2000) return cached;
    const dir = `${this.procRoot}/${pid}`;
    try {
      const [comm, cmdline, status] = await Promise.all([readFile(`${dir}/comm`, 'utf8'), readFile(`${dir}/cmdline`, 'utf8'), readFile(`${dir}/status`, 'utf8')]);
      const exe = await readlink(`${dir}/exe`).catch(() => '');
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      const facts: CachedFacts = {
        pid,
        ppid,
        comm: comm.trim(),
        exe,
        argv: cmdline.split('\0').filter((arg, index, all) => arg !== '' || index < all.length - 1),
        uid: Number(/^Uid:\s+(\d+)/m.exec(status)?.[1] ?? -1),
        startedAt,
      };
      this.facts.set(pid, facts);
      return facts;
    } catch {
      return undefined;
    }
  }

  private async userName(uid: number): Promise<string> {
    if (!this.users.has(uid)) this.users = await readPasswd();
    return this.users.get(uid) ?? String(uid);
  }

  private async osName(): Promise<string> {
    const text = await readFile('/etc/os-release', 'utf8').catch(() => '');
    return /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(text)?.[1] ?? `Linux ${release()}`;
  }

  private async physicalCores(logical: number): Promise<number> {
    const text = await readFile(`${this.procRoot}/cpuinfo`, 'utf8').catch(() => '');
    const cores = new Set<string>();
    for (const block of text.split('\n\n')) {
      const physical = /^physical id\s*:\s*(\d+)/m.exec(block)?.[1];
      const core = /^core id\s*:\s*(\d+)/m.exec(block)?.[1];
      if (physical !== undefined && core !== undefined) cores.add(`${physical}:${core}`);
    }
    return cores.size > 0 ? cores.size : logical;
  }
}

async function readPasswd(): Promise<Map<number, string>> {
  const users = new Map<number, string>();
  const text = await readFile('/etc/passwd', 'utf8').catch(() => '');
  for (const line of text.split('\n')) {
    const [name, , uid] = line.split(':');
    if (name !== undefined && uid !== undefined && name !== '') users.set(Number(uid), name);
  }
  return users;
}
