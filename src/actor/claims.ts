// One owner per port and per store. Before any actor starts, the main process claims every port its
// fronts will listen on and every store its actors will write; a second process asked for one of them
// refuses to start and names the holder. The front threads of one process still share their port:
// they bind with SO_REUSEPORT after the claim, as before.
//
// A claim is a Unix socket bound under a name derived from what it claims (see claim-socket.ts): one
// socket per name, dropped by the kernel when the process ends however it ends (no stale lock after a
// SIGKILL), and it answers whoever connects with the holder's pid and command. A port also gets a
// probe bind without SO_REUSEPORT, which fails when anything else holds the port.
import { realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { ConfigError } from '../errors.js';
import { probePort } from '../http/port.js';
import { askHolder, bindClaim, type Holder } from './claim-socket.js';
import { formatHostPort } from '../net/address.js';
import { OutpostError } from '../errors.js';

export interface PortClaim {
  host: string;
  /** 0 claims nothing: the system picks a port no one else has. */
  port: number;
  /** The option that sets it, under the role's config (`port`, `server.listen`), for messages. */
  option: string;
}

export interface StoreClaim {
  /** A file or directory; every file of the store is named after it. */
  path: string;
  /** What it is, for messages: `pool file`. */
  what: string;
}

/** What a role holds while it runs. */
export interface RoleClaims {
  ports?: PortClaim[];
  stores?: StoreClaim[];
}

/** A port or store another process holds: the process exits 1 with this message. */
export class ClaimRefused extends OutpostError {
  override readonly name: string = 'ClaimRefused';
  constructor(message: string, options?: ErrorOptions) {
    super('ERR_CONFLICT', message, options);
  }
}

const probeFailures: Record<string, string> = {
  EADDRINUSE: 'address in use',
  EADDRNOTAVAIL: 'address not available on this machine',
  EACCES: 'permission denied (ports below 1024 need privileges)',
};

/**
 * Claims every port and store of the roles for this process, until it exits. Throws ConfigError when
 * two roles of one config ask for the same port, ClaimRefused when another process holds one.
 */
export async function holdClaims(roles: readonly { role: string; claims: RoleClaims }[]): Promise<void> {
  const clashes = portClashes(roles);
  if (clashes.length > 0) throw new ConfigError(clashes);
  for (const { host, port } of claimedPorts(roles)) {
    const address = formatHostPort(host, port);
    const name = `port/${address}`;
    if (!(await bindClaim(name))) throw new ClaimRefused(`cannot listen on ${address}: address in use by ${describe(await askHolder(name))}`);
    const failure = await probePort(host, port);
    if (failure !== undefined) throw new ClaimRefused(`cannot listen on ${address}: ${probeFailures[failure] ?? failure}`);
  }
  for (const { path, what } of roles.flatMap(({ claims }) => claims.stores ?? [])) {
    // The same store reached through a symbolic link is the same claim.
    const name = `store/${createHash('sha256')
      .update(await canonicalPath(path))
      .digest('hex')}`;
    if (!(await bindClaim(name))) throw new ClaimRefused(`cannot use the ${what} ${path}: it is in use by ${describe(await askHolder(name))}`);
  }
}

/** Two roles of one config on one port, each as a sentence naming both options; checked without binding. */
export function portClashes(roles: readonly { role: string; claims: RoleClaims }[]): string[] {
  const ports = claimedPorts(roles);
  const clashes: string[] = [];
  for (const [index, claim] of ports.entries()) {
    const first = ports.findIndex((other) => other.host === claim.host && other.port === claim.port);
    const other = ports[first]!;
    if (first !== index)
      clashes.push(`roles.${other.role}.${other.option} and roles.${claim.role}.${claim.option} both listen on ${formatHostPort(claim.host, claim.port)}`);
  }
  return clashes;
}

function claimedPorts(roles: readonly { role: string; claims: RoleClaims }[]): (PortClaim & { role: string })[] {
  return roles.flatMap(({ role, claims }) => (claims.ports ?? []).filter(({ port }) => port !== 0).map((claim) => ({ ...claim, role })));
}

function describe(holder: Holder | undefined): string {
  // The holder may have exited between the refusal and the question.
  return holder === undefined ? 'another process of outpost' : `${holder.command} (pid ${holder.pid})`;
}

/** The real path of `path`, which may not exist yet: its nearest existing folder resolved, the rest as given. */
async function canonicalPath(path: string): Promise<string> {
  const missing: string[] = [];
  let existing = resolve(path);
  for (;;) {
    try {
      return join(await realpath(existing), ...missing);
    } catch (error) {
      const parent = dirname(existing);
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === existing) return resolve(path);
      missing.unshift(basename(existing));
      existing = parent;
    }
  }
}
