// The speedtest role (netspeed server): HTTP fronts on several threads sharing one port.
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { allowedHosts, bindAddress, port, positiveInteger } from '../../src/config/rules.js';
import { frontSpecs } from '../http-front/fronts.js';
import type { RoleDefinition } from '../../src/config/role.js';
import { siteRef } from '../../src/http/site.js';
import { speedtestSite } from './site/kind.js';
import { actorRef, actorSpec } from '../../src/actor/kind.js';
import { resultsActor } from './results/kind.js';

const resultsRef = actorRef(resultsActor, 'speedtest/results');

/** MB is decimal everywhere in netspeed, as in Mbps: 100 MB is 100,000,000 bytes. */
export const megabyte = 1_000_000;

export const speedtestSchema = z.strictObject({
  host: bindAddress.default('0.0.0.0').describe('The address to bind.'),
  port: port.default(8080).describe('The port; 0 picks a free one.'),
  name: z.string().min(1).max(100).default('Speed Test').describe('The server name the page shows.'),
  duration_seconds: positiveInteger.max(120).default(8).describe("How long each phase (download, upload) of the page's test lasts."),
  quiet: z.boolean().default(false).describe('Log no line per request.'),
  threads: positiveInteger
    .max(64)
    .default(Math.min(2, availableParallelism()))
    .describe('Front threads sharing the port; each can fill a fast link on its own, more spread the load.')
    .meta({ 'x-default': 'the smaller of 2 and the number of CPUs' }),
  max_upload_mb: positiveInteger.max(10_000).default(100).describe('The largest upload a test may send; MB is decimal, as in Mbps.'),
  allowed_hosts: allowedHosts.describe(
    'Host names (or IP addresses) the server answers besides loopback ones while it is bound to loopback; other names get 421.',
  ),
  results_file: z
    .string()
    .min(1)
    .optional()
    .describe('Keep the results people save in this file: an SQLite database where Node has node:sqlite, JSON Lines elsewhere. Unset keeps none.'),
  results_max: positiveInteger.max(100_000).default(1000).describe('Results kept at most; past it the oldest go.'),
  results_keep_address: z.boolean().default(false).describe('Keep the address each result was sent from.'),
});

export const speedtestRole: RoleDefinition<typeof speedtestSchema> = {
  name: 'speedtest',
  summary: 'speed test server (netspeed)',
  schema: speedtestSchema,
  // One front in the demo: each thread pays its own Node start-up and module graph (150-250 ms of CPU
  // on the 2-core machine), and a demo's speed test does not need a second.
  demoConfig: { host: '127.0.0.1', port: 0, quiet: true, threads: 1 },
  claims: ({ host, port, results_file }) => ({
    ports: [{ host, port, option: 'port' }],
    stores: results_file === undefined ? [] : [{ path: results_file, what: 'results file' }],
  }),
  async actors(config) {
    const keeping = config.results_file !== undefined;
    const results = keeping
      ? [
          actorSpec(resultsActor, {
            ref: resultsRef,
            role: 'speedtest',
            config: { file: config.results_file!, maxResults: config.results_max, keepAddress: config.results_keep_address, serverName: config.name },
          }),
        ]
      : [];
    const fronts = await frontSpecs({
      role: 'speedtest',
      threads: config.threads,
      links: keeping ? [resultsRef] : [],
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
          ...(keeping ? { results: resultsRef } : {}),
        }),
      },
    });
    return [...results, ...fronts];
  },
};
