// A port for a service that is down: nothing listens on it.
import { createServer } from 'node:net';

/** A loopback port nothing listens on: taken from the kernel, then let go. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
