// `--allowed-host NAME` of the role binaries whose fronts check Host. Its own file: a program
// declares it at start, and role-flags.ts (loaded when a command runs) brings the config schemas.
import { Option } from 'commander';

/** `--allowed-host NAME`, repeatable: the role's `allowed_hosts` (src/http/allowed-hosts.ts). */
export function allowedHostOption(): Option {
  return new Option('--allowed-host <name>', 'also answer requests whose Host is this name (repeatable); bound to loopback, only loopback names are answered otherwise').argParser(
    (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
  );
}
