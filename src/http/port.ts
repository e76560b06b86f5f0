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
