// Two network namespaces joined by a veth pair, made by the test and removed at teardown: a link the
// test owns, shaped with tc so that the shaper's rate is the ground truth.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { ExecutionContext } from 'ava';

const run = promisify(execFile);

export interface ShapedLink {
  server: { namespace: string; address: string };
  client: { namespace: string; address: string };
  /** argv prefix that runs a command inside a namespace. */
  inNamespace(namespace: string): string[];
  /** Limits both directions to `mbit` with tbf and a small burst. */
  shape(mbit: number): Promise<void>;
}

export async function makeShapedLink(t: ExecutionContext): Promise<ShapedLink> {
  const id = randomBytes(3).toString('hex');
  const server = { namespace: `nsts-${id}`, address: '10.231.0.2', device: `vs${id}` };
  const client = { namespace: `nstc-${id}`, address: '10.231.0.1', device: `vc${id}` };
  const ip = (...args: string[]) => run('ip', args);
  t.teardown(async () => {
    await ip('netns', 'del', server.namespace).catch(() => {});
    await ip('netns', 'del', client.namespace).catch(() => {});
  });
  await ip('netns', 'add', server.namespace);
  await ip('netns', 'add', client.namespace);
  await ip('link', 'add', client.device, 'netns', client.namespace, 'type', 'veth', 'peer', 'name', server.device, 'netns', server.namespace);
  for (const end of [server, client]) {
    await ip('-n', end.namespace, 'addr', 'add', `${end.address}/30`, 'dev', end.device);
    await ip('-n', end.namespace, 'link', 'set', end.device, 'up');
    await ip('-n', end.namespace, 'link', 'set', 'lo', 'up');
  }
  return {
    server: { namespace: server.namespace, address: server.address },
    client: { namespace: client.namespace, address: client.address },
    inNamespace: (namespace) => ['ip', 'netns', 'exec', namespace],
    async shape(mbit) {
      for (const end of [server, client]) {
        // A burst of a few packets only: tc's rate holds from the first second on.
        await run('ip', ['netns', 'exec', end.namespace, 'tc', 'qdisc', 'replace', 'dev', end.device, 'root', 'tbf', 'rate', `${mbit}mbit`, 'burst', '16kb', 'latency', '50ms']);
      }
    },
  };
}
