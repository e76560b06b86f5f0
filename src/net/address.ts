// Addresses as people read them: `host:port` with IPv6 in brackets, the URL a person opens, and
// whether a bind address reaches only this machine. Plain functions, so any thread may use them
// without loading a server.
import { BlockList, isIPv4, isIPv6 } from 'node:net';

export function formatHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The URL a person opens for a server bound to host:port; a wildcard bind is shown as loopback. */
export function urlFor(host: string, port: number, path = '/', scheme: 'http' | 'https' = 'http'): string {
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `${scheme}://${formatHostPort(shown, port)}${path}`;
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/**
 * Reaches only this machine: `localhost`, or an address literal in 127.0.0.0/8 or ::1 (IPv4-mapped
 * too; IPv6 without brackets). Any other name is not, however it starts: `127.attacker.example` or
 * `127.0.0.1.nip.io` resolve wherever their owner points them.
 */
export function isLoopbackOnly(host: string): boolean {
  if (host.toLowerCase() === 'localhost') return true;
  if (isIPv4(host)) return loopback.check(host, 'ipv4');
  return isIPv6(host) && loopback.check(host, 'ipv6');
}
