// macOS: no /proc. Processes come from ps-list (its CPU share is an average over each process's
// lifetime, which is what `ps` offers there), memory from vm_stat and sysctl, ports from lsof.
import { execFile } from 'node:child_process';
import { cpus, hostname, machine, release, totalmem } from 'node:os';
import { promisify } from 'node:util';
import { childEnvironment } from '../../../../src/process/child-environment.js';
import { parseSwapUsage, parseVmStat, type MemoryFigures } from '../memory.js';
import { parseLsofListen } from '../ports.js';
import type { ListeningPort } from '../protocol.js';
import type { ProcessReading, StaticMachineInfo, SystemProbe } from './probe.js';

const run = promisify(execFile);

async function output(command: string, args: string[]): Promise<string> {
  return (await run(command, args, { timeout: 5000, env: childEnvironment() })).stdout;
}

export class DarwinProbe implements SystemProbe {
  async machine(): Promise<StaticMachineInfo> {
    const processors = cpus();
    const version = (await output('sw_vers', ['-productVersion']).catch(() => '')).trim();
    const physical = Number((await output('sysctl', ['-n', 'hw.physicalcpu']).catch(() => '')).trim());
    return {
      hostname: hostname(),
      os: version === '' ? 'macOS' : `macOS ${version}`,
      kernel: release(),
      platform: 'darwin',
      arch: machine(),
      cpuModel: processors[0]?.model.trim() ?? 'unknown',
      physicalCores: Number.isInteger(physical) && physical > 0 ? physical : processors.length,
      logicalCores: processors.length,
      totalMemoryBytes: totalmem(),
    };
  }

  coreTimes() {
    return cpus().map((processor) => processor.times);
  }

  async memory(): Promise<MemoryFigures> {
    const figures = parseVmStat(await output('vm_stat', []), totalmem());
    const swap = parseSwapUsage(await output('sysctl', ['-n', 'vm.swapusage']).catch(() => ''));
    return { ...figures, swap };
  }

  async processes(): Promise<ProcessReading[]> {
    const total = totalmem();
    // Loaded here, not at the top: the sampler imports this file on every platform, and Linux never
    // runs `ps` (a thread loads at start only what its first request needs, for a short cold start).
    const { default: psList } = await import('ps-list');
    const list = await psList({ all: true });
    return list.map((entry) => ({
      pid: entry.pid,
      ppid: entry.ppid,
      comm: entry.name,
      exe: entry.path ?? '',
      argv: (entry.cmd ?? entry.name).split(' '),
      user: String(entry.uid ?? ''),
      cpuPercent: entry.cpu ?? 0,
      memoryBytes: Math.round(((entry.memory ?? 0) / 100) * total),
    }));
  }

  async listeningPorts(): Promise<ListeningPort[]> {
    return parseLsofListen(await output('lsof', ['-nP', '-iTCP', '-sTCP:LISTEN']).catch(() => ''));
  }

  // Filesystems, disks, interfaces and temperatures are read on Linux only: macOS keeps them behind
  // IOKit and getifaddrs, which Node does not reach without a native module.
  filesystems() {
    return [];
  }

  diskCounters() {
    return [];
  }

  interfaceCounters() {
    return [];
  }

  temperatures() {
    return [];
  }
}
