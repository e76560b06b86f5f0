// How fast this machine is at this moment, in two figures the suite's time follows: a fixed piece of
// JavaScript (CPU ms) and a process start (ms). On this sandboxed 2-core machine the same suite took
// 727 s and 838 s in two runs of one commit an hour apart, its CPU 1,316 s and 1,533 s: the machine,
// not the suite, had changed, and a process start cost 50% more at one moment than at another.
// test/run.sh prints these before the tests, so a run's figures can be read against the machine's.
import { spawnSync } from 'node:child_process';

export interface MachineSpeed {
  /** CPU milliseconds of a fixed integer loop (10^8 steps). */
  loopCpuMs: number;
  /** Wall milliseconds per start of /bin/true, the median of 21. */
  processStartMs: number;
}

function loopCpuMs(): number {
  const before = process.cpuUsage();
  let value = 0;
  for (let step = 0; step < 100_000_000; step++) value = (value + step * 7) % 1_000_003;
  const used = process.cpuUsage(before);
  // The value is used, so the loop cannot be dropped as dead code.
  if (value < 0) throw new Error('unreachable');
  return (used.user + used.system) / 1000;
}

function processStartMs(): number {
  const times: number[] = [];
  for (let start = 0; start < 21; start++) {
    const startedAt = performance.now();
    spawnSync('/bin/true');
    times.push(performance.now() - startedAt);
  }
  return times.sort((a, b) => a - b)[10]!;
}

export function machineSpeed(): MachineSpeed {
  return { loopCpuMs: loopCpuMs(), processStartMs: processStartMs() };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const speed = machineSpeed();
  console.log(`a fixed JavaScript loop took ${speed.loopCpuMs.toFixed(0)} ms of CPU, a process start ${speed.processStartMs.toFixed(1)} ms`);
}
