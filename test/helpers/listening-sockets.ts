// The sockets listening on a TCP port, as `ss` lists them (iproute2): what a test checks a server
// holds, or shows when a server stopped answering.
import { execFileSync } from 'node:child_process';

/** One `ss -Hltnp` line per socket listening on `port`, with the process holding it. */
export function listeningSockets(port: number): string[] {
  return execFileSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.trim() !== '');
}
