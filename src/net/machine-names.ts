// The names and addresses a person types to reach this machine: its host name (and that name's first
// label, the short name a LAN resolves), and every address of its interfaces. Read when asked, from
// the kernel: an address gained later needs a restart or an `allowed_hosts` entry.
import { hostname, networkInterfaces } from 'node:os';

/** This machine's host name, its short name, and its interface addresses (IPv6 without brackets). */
export function machineNames(): string[] {
  const name = hostname();
  const names = new Set([name, name.split('.')[0] ?? name]);
  for (const addresses of Object.values(networkInterfaces())) {
    for (const { address } of addresses ?? []) names.add(address);
  }
  names.delete('');
  return [...names];
}
