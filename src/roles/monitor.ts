// The monitor role (hostwatch): a sampler actor measuring the machine and an HTTP front serving the
// dashboard.
import { z } from 'zod';
import { actorEntry } from '../actor/spec.js';
import { bindAddress, port, positiveInteger } from '../config/rules.js';
import type { HttpFrontConfig } from '../../actors/http-front/protocol.js';
import type { SamplerConfig } from '../../actors/sampler/protocol.js';
import type { RoleDefinition } from './role.js';

export const monitorSchema = z.strictObject({
  host: bindAddress.default('0.0.0.0'),
  port: port.default(8080),
  interval_seconds: z.number().min(0.5).max(60).default(2),
  history_seconds: positiveInteger.max(3600).default(120),
  top_processes: positiveInteger.max(1000).default(40),
  containers: z.boolean().default(true),
});

export const monitorRole: RoleDefinition<typeof monitorSchema> = {
  name: 'monitor',
  summary: 'live machine dashboard (hostwatch)',
  schema: monitorSchema,
  demoConfig: { host: '127.0.0.1', port: 0 },
  claims: ({ host, port }) => ({ ports: [{ host, port, option: 'port' }] }),
  actors(config) {
    const intervalMs = Math.round(config.interval_seconds * 1000);
    const sampler: SamplerConfig = { intervalMs, historySeconds: config.history_seconds, topProcesses: config.top_processes, containers: config.containers, front: 'monitor/http-front' };
    const front: HttpFrontConfig = { host: config.host, port: config.port, site: { kind: 'monitor', sampler: 'monitor/sampler', intervalMs } };
    return Promise.resolve([
      { name: 'monitor/sampler', kind: 'sampler', instance: 1, role: 'monitor', entry: actorEntry('sampler'), config: sampler, front: false, links: ['monitor/http-front'] },
      { name: 'monitor/http-front', kind: 'http-front', instance: 1, role: 'monitor', entry: actorEntry('http-front'), config: front, front: true, links: ['monitor/sampler'] },
    ]);
  },
};
