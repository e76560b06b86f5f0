// Which `Host` values a front answers, against DNS rebinding: a page on any site can point a name it
// owns at 127.0.0.1 and then read, as same-origin, whatever a loopback server answers to that name.
// A front bound to loopback therefore answers only loopback names and addresses, plus the names its
// role's `allowed_hosts` lists (Vite's `server.allowedHosts`, Jupyter's `allow_remote_access` do the
// same). Off loopback the Host is whatever name users reach the server by, so nothing is checked
// unless `allowed_hosts` is set, or the front asks for the check on every bind: then this machine's
// own names and addresses pass too (a dashboard on 0.0.0.0 reached by its host name or LAN address).
import { isIPv4, isIPv6 } from 'node:net';
import { isLoopbackOnly } from '../net/address.js';

/** True when `host` (a Host header: name or address, maybe with a port) may be answered. */
export interface HostCheck {
  (host: string): boolean;
  /** How many distinct Host values that passed it remembers, at most `maxRememberedHosts`. */
  readonly remembered: () => number;
}

/** The most Host values one check remembers as passed. */
export const maxRememberedHosts = 64;

export interface HostCheckOptions {
  /** Names answered besides loopback ones (the role's `allowed_hosts`). */
  allowedHosts?: readonly string[];
  /**
   * Check on any bind, not only with `allowedHosts` or on loopback; off loopback, this machine's own
   * names and addresses (`machineNames()` of src/net/machine-names.ts) pass as well.
   */
  everyBind?: { machineNames: () => readonly string[] };
}

/**
 * The check of a front bound to `bind`, or undefined when it answers any Host (off loopback, no
 * `allowed_hosts`, no `everyBind`). Names are matched exactly, case-insensitively, with any port;
 * an IPv6 address is matched in the brackets a Host header writes it in.
 */
export function hostCheckFor(bind: string, { allowedHosts = [], everyBind }: HostCheckOptions = {}): HostCheck | undefined {
  const loopback = isLoopbackOnly(bind);
  if (allowedHosts.length === 0 && !loopback && everyBind === undefined) return undefined;
  const names = loopback || everyBind === undefined ? allowedHosts : [...allowedHosts, ...everyBind.machineNames()];
  const allowed = new Set(names.map((name) => (isIPv6(name) ? `[${name}]` : name).toLowerCase()));
  // Clients send the same few Host values over and over: those that passed answer from one set
  // look-up. Bounded, so that a client sending a new `*.localhost` name each time cannot grow it.
  const passed = new Set<string>();
  const check = (host: string): boolean => {
    if (passed.has(host)) return true;
    const name = hostName(host).toLowerCase();
    if (!allowed.has(name) && !isLoopbackName(name)) return false;
    if (passed.size < maxRememberedHosts) passed.add(host);
    return true;
  };
  return Object.assign(check, { remembered: () => passed.size });
}

/** The name or address of a Host header: `[::1]:8080` is `[::1]`, `localhost:80` is `localhost`. */
function hostName(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end === -1 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

/** RFC 6761 §6.3: `localhost` and every name under it resolve to loopback; so do 127.0.0.0/8 and ::1. */
function isLoopbackName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost') || name === '[::1]' || (name.startsWith('127.') && isIPv4(name));
}
