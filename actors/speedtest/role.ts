// The speedtest role (netspeed server): HTTP fronts on several threads sharing one port.
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { allowedHosts, bindAddress, port, positiveInteger } from '../../src/config/rules.js';
import { frontSpecs } from '../../src/http/front-specs.js';
import type { RoleDefinition } from '../../src/config/role.js';
import { siteRef } from '../../src/http/site.js';
import { speedtestSite } from './site/kind.js';

/** MB is decimal everywhere in netspeed, as in Mbps: 100 MB is 100,000,000 bytes. */
export const megabyte = 1_000_000;

export const speedtestSchema = z.strictObject({
  host: bindAddress.default('0.0.0.0'),
  port: port.default(8080),
  name: z.string().min(1).max(100).default('Speed Test'),
  duration_seconds: positiveInteger.max(120).default(8),
  quiet: z.boolean().default(false),
  /** Front threads sharing the port; each can fill a fast link on its own, more spread the load. */
  threads: positiveInteger.max(64).default(Math.min(2, availableParallelism())),
  max_upload_mb: positiveInteger.max(10_000).default(100),
  /** Host names the server answers besides loopback ones (docs/netspeed.md). */
  allowed_hosts: allowedHosts,
});

export const speedtestRole: RoleDefinition<typeof speedtestSchema> = {
  name: 'speedtest',
  summary: 'speed test server (netspeed)',
  schema: speedtestSchema,
  // One front in the demo: each thread pays its own Node start-up and module graph (150-250 ms of CPU
  // on the 2-core machine), and a demo's speed test does not need a second.
  demoConfig: { host: '127.0.0.1', port: 0, quiet: true, threads: 1 },
  claims: ({ host, port }) => ({ ports: [{ host, port, option: 'port' }] }),
  actors(config) {
    return frontSpecs({
      role: 'speedtest',
      threads: config.threads,
      config: {
        host: config.host,
        port: config.port,
        allowedHosts: config.allowed_hosts,
        site: siteRef(speedtestSite, {
          name: config.name,
          testDurationSeconds: config.duration_seconds,
          maxDownloadBytes: 100 * megabyte,
          maxUploadBytes: config.max_upload_mb * megabyte,
          logRequests: !config.quiet,
        }),
      },
    });
  },
};
