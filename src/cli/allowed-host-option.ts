// `--allowed-host NAME` of the role binaries whose fronts check Host. Its own file: a program
// declares it at start, and role-flags.ts (loaded when a command runs) brings the config schemas.
import { Option } from 'commander';

/**
 * `--allowed-host NAME`, repeatable: the role's `allowed_hosts` (src/http/allowed-hosts.ts). `everyBind`:
 * the role checks the Host on any bind (its front's `hostCheckEveryBind`), and the help says so.
 */
export function allowedHostOption({ everyBind = false }: { everyBind?: boolean } = {}): Option {
  const otherwise = everyBind
    ? "only loopback names and this machine's own names and addresses are answered otherwise"
    : 'bound to loopback, only loopback names are answered otherwise';
  return new Option('--allowed-host <name>', `also answer requests whose Host is this name (repeatable); ${otherwise}`).argParser(
    (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
  );
}
