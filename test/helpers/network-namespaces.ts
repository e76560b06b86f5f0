// Network namespaces made by a test and removed at teardown: two joined by a veth pair, a link the
// test owns, shaped with tc so that the shaper's rate is the ground truth; and a host without IPv6.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ExecutionContext } from 'ava';

const run = promisify(execFile);

/** The token bucket of the shaper (tc tbf's burst): a few packets, so tc's rate holds from the first second on. */
export const shaperBurstBytes = 16 * 1024;

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
  // Each link its own /30 in 10.231.0.0/16: the namespaces keep sockets apart, but the servers' port
  // claims (files under TMPDIR) are one set for the machine, so two links must not share an address.
  const [third = 0, fourth = 0] = randomBytes(2);
  const quad = fourth & 0xfc;
  const server = { namespace: `nsts-${id}`, address: `10.231.${third}.${quad + 2}`, device: `vs${id}` };
  const client = { namespace: `nstc-${id}`, address: `10.231.${third}.${quad + 1}`, device: `vc${id}` };
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
        await run('ip', [
          'netns',
          'exec',
          end.namespace,
          'tc',
          'qdisc',
          'replace',
          'dev',
          end.device,
          'root',
          'tbf',
          'rate',
          `${mbit}mbit`,
          'burst',
          '16kb',
          'latency',
          '50ms',
        ]);
      }
    },
  };
}

export interface Ipv4OnlyHost {
  namespace: string;
  /** argv prefix that runs a command on that host. */
  command: string[];
}

/**
 * A host without IPv6, as Docker makes by default: a namespace with loopback up and no IPv6
 * route, whose /etc/hosts (bind-mounted by `ip netns exec` from /etc/netns/<name>/hosts) gives the
 * names in `hosts` their addresses, IPv6 ones included, which it cannot reach.
 */
export async function makeIpv4OnlyHost(t: ExecutionContext, hosts: Record<string, readonly string[]>): Promise<Ipv4OnlyHost> {
  const namespace = `ns4-${randomBytes(3).toString('hex')}`;
  const etc = join('/etc/netns', namespace);
  t.teardown(async () => {
    await run('ip', ['netns', 'del', namespace]).catch(() => {});
    await rm(etc, { recursive: true, force: true });
  });
  await run('ip', ['netns', 'add', namespace]);
  await run('ip', ['-n', namespace, 'link', 'set', 'lo', 'up']);
  await mkdir(etc, { recursive: true });
  const lines = ['127.0.0.1 localhost', ...Object.entries(hosts).flatMap(([name, addresses]) => addresses.map((address) => `${address} ${name}`))];
  await writeFile(join(etc, 'hosts'), `${lines.join('\n')}\n`);
  return { namespace, command: ['ip', 'netns', 'exec', namespace] };
}
