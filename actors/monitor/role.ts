// The monitor role (hostwatch): a sampler actor measuring the machine and HTTP fronts serving the
// dashboard; the sampler publishes its snapshots to every front.
import { z } from 'zod';
import { actorRef, actorSpec } from '../../src/actor/kind.js';
import { allowedHosts, bindAddress, port, positiveInteger } from '../../src/config/rules.js';
import { samplerActor, snapshotTopic } from './sampler/kind.js';
import { frontSpecs } from '../http-front/fronts.js';
import type { RoleDefinition } from '../../src/config/role.js';
import { siteRef } from '../../src/http/site.js';
import { monitorSite } from './site/kind.js';

export const monitorSchema = z.strictObject({
  host: bindAddress.default('0.0.0.0').describe('The address to bind.'),
  port: port.default(8080).describe('The port; 0 picks a free one.'),
  interval_seconds: z.number().min(0.5).max(60).default(2).describe('Time between two samples of the machine.'),
  history_seconds: positiveInteger.max(3600).default(120).describe('How far back the charts go.'),
  top_processes: positiveInteger.max(1000).default(40).describe('Processes listed, the busiest first.'),
  containers: z.boolean().default(true).describe('List the processes of containers too.'),
  show_container_args: z
    .boolean()
    .default(false)
    .describe('Show container command lines with their arguments, which often carry passwords; off, the program alone.'),
  threads: positiveInteger.max(16).default(1).describe("Front threads sharing the port; one serves a dashboard's few viewers easily."),
  allowed_hosts: allowedHosts.describe(
    "Host names (or IP addresses) the dashboard answers besides loopback ones and this machine's own, on any bind; other names get 421.",
  ),
});

export const monitorRole: RoleDefinition<typeof monitorSchema> = {
  name: 'monitor',
  summary: 'live machine dashboard (hostwatch)',
  schema: monitorSchema,
  demoConfig: { host: '127.0.0.1', port: 0 },
  claims: ({ host, port }) => ({ ports: [{ host, port, option: 'port' }] }),
  async actors(config) {
    const intervalMs = Math.round(config.interval_seconds * 1000);
    const sampler = actorRef(samplerActor, 'monitor/sampler');
    return [
      actorSpec(samplerActor, {
        ref: sampler,
        role: 'monitor',
        config: {
          intervalMs,
          historySeconds: config.history_seconds,
          topProcesses: config.top_processes,
          containers: config.containers,
          showContainerArgs: config.show_container_args,
        },
        topics: [snapshotTopic],
      }),
      ...(await frontSpecs({
        role: 'monitor',
        threads: config.threads,
        // The dashboard shows processes and ports: on any bind it answers only names of this
        // machine, loopback and allowed_hosts, so a rebinding page on 0.0.0.0 reads nothing.
        config: {
          host: config.host,
          port: config.port,
          allowedHosts: config.allowed_hosts,
          hostCheckEveryBind: true,
          site: siteRef(monitorSite, { sampler, intervalMs }),
        },
        links: [sampler],
      })),
    ];
  },
};
