// Container processes through the runtime's own CLI: `docker ps --format '{{json .}}'` lists the
// containers, `docker top <id>` their processes (host PIDs, so they merge with the host table).
// podman prints the same shapes.

export interface ContainerSummary {
  id: string;
  name: string;
  image: string;
}

export interface ContainerTopEntry {
  pid: number;
  user: string;
  command: string;
}

export function parsePsJsonLines(text: string): ContainerSummary[] {
  const containers: ContainerSummary[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const entry = JSON.parse(line) as { ID?: unknown; Names?: unknown; Image?: unknown };
    if (typeof entry.ID !== 'string') continue;
    const names = typeof entry.Names === 'string' ? entry.Names : Array.isArray(entry.Names) ? entry.Names.join(',') : entry.ID;
    containers.push({ id: entry.ID, name: names.split(',')[0]!, image: typeof entry.Image === 'string' ? entry.Image : '' });
  }
  return containers;
}

/**
 * `docker top` prints ps's table: a header (`UID PID PPID C STIME TTY TIME CMD`, or podman's
 * `USER PID PPID %CPU ELAPSED TTY TIME COMMAND`) and one row a process, the command last and free-form.
 */
export function parseTop(text: string): ContainerTopEntry[] {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const header = lines[0]?.trim().split(/\s+/) ?? [];
  const pidColumn = header.indexOf('PID');
  const userColumn = header.findIndex((name) => name === 'UID' || name === 'USER');
  const commandColumn = header.length - 1;
  if (pidColumn < 0 || !['CMD', 'COMMAND'].includes(header[commandColumn] ?? '')) throw new Error(`unexpected top header: ${lines[0] ?? '(none)'}`);
  return lines.slice(1).map((line) => {
    const fields = line.trim().split(/\s+/);
    return {
      pid: Number(fields[pidColumn]),
      user: userColumn >= 0 ? (fields[userColumn] ?? '') : '',
      command: fields.slice(commandColumn).join(' '),
    };
  });
}

/**
 * The program of a command line, its arguments left out: containers are often given passwords and
 * tokens as arguments (`mysqld --password=...`), and the dashboard must not show them by default.
 * `docker top` prints the line with its arguments joined by spaces, so the first word is the program.
 */
export function withoutArguments(command: string): string {
  return command.trim().split(/\s+/)[0] ?? '';
}

/** Processes of a desktop runtime's VM, hidden once the containers inside it are listed. */
export const containerVmProcessNames: ReadonlySet<string> = new Set([
  'com.docker.backend',
  'com.docker.hyperkit',
  'com.docker.virtualization',
  'com.docker.vmnetd',
  'vpnkit',
  'Docker Desktop',
  'qemu-system-x86_64',
  'qemu-system-aarch64',
  'gvproxy',
  'vfkit',
]);
