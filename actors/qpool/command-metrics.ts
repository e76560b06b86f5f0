// The diode commands' figures for /metrics: CPU and memory of each running child, read
// with pidusage when the thread pushes its metrics (src/metrics/thread-metrics.ts), never when a
// command starts or a chunk arrives; and how each run ended.
import pidusage from 'pidusage';
import type { Registry } from 'prom-client';
import { promClient } from '../../src/metrics/prom-client-parts.js';

/** The diode command a thread runs, as the `command` label names it. */
export type CommandRole = 'diode_send' | 'diode_receive';

/** What a command runner tells about its children. */
export interface CommandWatch {
  started(pid: number | undefined): void;
  /** `code` null with a signal: killed; both null: the command could not be run. */
  ended(pid: number | undefined, code: number | null, signal: NodeJS.Signals | null): void;
}

export function registerCommandMetrics(registry: Registry, command: CommandRole): CommandWatch {
  const { Counter, Gauge } = promClient();
  const running = new Set<number>();
  const registers = [registry];
  // Both gauges are collected together at each push (prom-client starts every collect before
  // awaiting any): they share one reading of the children.
  let reading: Promise<Usage | undefined> | undefined;
  const read = () => {
    reading ??= sampleUsage([...running]).finally(() => (reading = undefined));
    return reading;
  };
  // Both gauges read the same sample (read() keeps one a push), and have no value while none runs.
  const usageGauge = (name: string, help: string, pick: (usage: Usage) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['command'],
      registers,
      async collect() {
        const usage = await read();
        this.reset();
        if (usage !== undefined) this.set({ command }, pick(usage));
      },
    });
  usageGauge('outpost_command_memory_bytes', 'Resident memory of the running diode command (no sample while none runs).', (usage) => usage.memoryBytes);
  usageGauge(
    'outpost_command_cpu_ratio',
    'CPU of the running diode command since the previous sample, in cores (1 = one core busy).',
    (usage) => usage.cpuRatio,
  );
  const exits = new Counter({
    name: 'outpost_command_exits_total',
    help: 'Diode command runs that ended, by exit code (a signal name when killed, "error" when it could not be run).',
    labelNames: ['command', 'code'],
    registers,
  });
  return {
    started(pid) {
      if (pid !== undefined) running.add(pid);
    },
    ended(pid, code, signal) {
      if (pid !== undefined) running.delete(pid);
      // pidusage keeps each pid's last reading (for the next CPU share) for a minute; a pid that
      // has ended must not lend its history to a new child that gets the same number.
      if (running.size === 0) pidusage.clear();
      exits.inc({ command, code: code !== null ? String(code) : (signal ?? 'error') });
    },
  };
}

interface Usage {
  cpuRatio: number;
  memoryBytes: number;
}

async function sampleUsage(pids: number[]): Promise<Usage | undefined> {
  if (pids.length === 0) return undefined;
  // A child may end between the set being read and /proc being read: it is then left out.
  const stats = await pidusage(pids).catch((): Record<string, pidusage.Status | undefined> => ({}));
  const alive = Object.values(stats).filter((stat) => stat !== undefined && stat !== null);
  if (alive.length === 0) return undefined;
  // pidusage gives percent of one core since its previous reading of that pid.
  return {
    cpuRatio: alive.reduce((sum, stat) => sum + stat.cpu, 0) / 100,
    memoryBytes: alive.reduce((sum, stat) => sum + stat.memory, 0),
  };
}
