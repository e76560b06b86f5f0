// A TCP relay on a loopback port of its own, in front of a server a test stops, restarts on another
// port or takes away: the process under test keeps one address while what is behind it changes.
import { connect, createServer, type AddressInfo } from 'node:net';
import type { ExecutionContext } from 'ava';

export interface TcpRelay {
  /** `http://127.0.0.1:<relay port>/`. */
  url: string;
  /** false: new connections are closed at once, as if nothing listened; true: relayed again. */
  setUp(up: boolean): void;
  /** Relays new connections to another port. */
  retarget(port: number): void;
}

export async function startTcpRelay(t: ExecutionContext, port: number): Promise<TcpRelay> {
  let target = port;
  let up = true;
  const relay = createServer((client) => {
    if (!up) return client.destroy();
    const upstream = connect(target, '127.0.0.1');
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => relay.close(() => resolve())));
  return {
    url: `http://127.0.0.1:${(relay.address() as AddressInfo).port}/`,
    setUp: (value) => (up = value),
    retarget: (next) => (target = next),
  };
}
