// The top-processes table: processes with the same parent and the same name become one row
// (`name xN`), rows are sorted by CPU share plus memory share.
import type { ProcessIdentity } from './process-names.js';
import type { ProcessRow, RuntimeTag } from './protocol.js';

export interface ProcessSample {
  pid: number;
  ppid: number;
  identity: ProcessIdentity;
  /** User name, or the container name when `container` is true. */
  source: string;
  container: boolean;
  /** Percent of one core. */
  cpuPercent: number;
  memoryBytes: number;
  exe: string;
}

export function processTable(
  samples: readonly ProcessSample[],
  totalMemoryBytes: number,
  limit: number,
  runtimeVersion: (runtime: string, exe: string) => string,
): ProcessRow[] {
  const rows = new Map<string, ProcessRow>();
  for (const sample of samples) {
    const key = `${sample.ppid}\0${sample.identity.name}\0${sample.source}`;
    const row = rows.get(key);
    if (row === undefined) {
      const runtime: RuntimeTag | null =
        sample.identity.runtime === null ? null : { name: sample.identity.runtime, version: runtimeVersion(sample.identity.runtime, sample.exe) };
      rows.set(key, {
        name: sample.identity.name,
        count: 1,
        pids: [sample.pid],
        cpuPercent: sample.cpuPercent,
        memoryBytes: sample.memoryBytes,
        memoryPercent: 0,
        source: sample.source,
        container: sample.container,
        runtime,
      });
    } else {
      row.count++;
      row.pids.push(sample.pid);
      row.cpuPercent += sample.cpuPercent;
      row.memoryBytes += sample.memoryBytes;
    }
  }
  const table = [...rows.values()];
  for (const row of table) {
    row.cpuPercent = Math.round(row.cpuPercent * 10) / 10;
    row.memoryPercent = totalMemoryBytes > 0 ? Math.round((row.memoryBytes / totalMemoryBytes) * 1000) / 10 : 0;
  }
  // Ties (hundreds of idle processes) fall back to a plain code-unit order: localeCompare is the
  // slow part of sorting them.
  table.sort((a, b) => b.cpuPercent + b.memoryPercent - (a.cpuPercent + a.memoryPercent) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return table.slice(0, limit);
}
