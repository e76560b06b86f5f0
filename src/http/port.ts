import { createServer } from 'node:net';

/**
 * A free TCP port on `host`. Used when several front threads must share a port the config leaves at
 * 0: uSockets cannot join a socket bound to port 0 from another thread, so all of them bind this one.
 */
export function reservePort(host: string): Promise<number> {
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
