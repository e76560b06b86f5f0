import { randomInt } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';

/** Where reserved ports are drawn from when the kernel's ephemeral range leaves room below it. */
const lowestReserved = 10_000;
/** Draws before giving up: each one that is taken is drawn again. */
const reserveAttempts = 50;

/**
 * A free TCP port on `host`. Used when several front threads must share a port the config leaves at
 * 0: uSockets cannot join a socket bound to port 0 from another thread, so all of them bind this one.
 *
 * The port is drawn at random below the kernel's ephemeral range (ip_local_port_range), not taken
 * from bind(0): between this probe and the fronts' bind, any outgoing connection on the host may be
 * given an ephemeral port as its local one, and the fronts then fail with EADDRINUSE until that
 * connection closes. Below the range, only another listener can take it.
 */
export async function reservePort(host: string): Promise<number> {
  const below = await ephemeralRangeStart();
  if (below === undefined || below - lowestReserved < 1_000) return kernelPort(host);
  for (let attempt = 0; attempt < reserveAttempts; attempt += 1) {
    const port = randomInt(lowestReserved, below);
    if ((await probePort(host, port)) === undefined) return port;
  }
  return kernelPort(host);
}

/** The first port of Linux's ephemeral range, or undefined where there is no such file. */
async function ephemeralRangeStart(): Promise<number | undefined> {
  const text = await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').catch(() => '');
  const low = Number(text.trim().split(/\s+/)[0]);
  return Number.isInteger(low) && low > 0 ? low : undefined;
}

/** A port the kernel picks with bind(0), let go at once. */
function kernelPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address();
      server.close(() => {
        if (address === null || typeof address === 'string') reject(new Error('no port was assigned'));
        else resolve(address.port);
      });
    });
  });
}

/**
 * The port to give listeners that must all bind the same concrete one (several front threads, or a
 * TLS front that listens again for a new certificate): `port`, or a reserved free one when it is 0.
 */
export async function concretePort(host: string, port: number, mustBeConcrete: boolean): Promise<number> {
  return port === 0 && mustBeConcrete ? reservePort(host) : port;
}

/**
 * Whether host:port can be listened on: binds it without SO_REUSEPORT and lets it go at once. A
 * socket of any process there, a SO_REUSEPORT one included, makes it fail: uSockets fronts would
 * otherwise join another process's port and split its requests with it. Resolves with the error code
 * (EADDRINUSE, EADDRNOTAVAIL, EACCES) when it cannot.
 */
export function probePort(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}
