// The send role (qpool collect): a collector polling ANU and a diode sender pushing its batches
// across the one-way diode. Nothing is kept on disk on this side but the time of the last keyed request.
import { actorRef, actorSpec } from '../../src/actor/kind.js';
import { sendSchema, type SendConfig } from './config.js';
import { collectorActor } from './collector/kind.js';
import type { CollectorConfig, SourceSettings } from './collector/protocol.js';
import { ledgerPath } from './collector/ledger.js';
import { diodeSenderActor } from './diode-sender/kind.js';
import type { DiodeSenderConfig } from './diode-sender/protocol.js';
import { recvReceiver } from './recv.js';
import type { RoleDefinition } from '../../src/config/role.js';
import { frontSpecs } from '../http-front/fronts.js';
import { operationsOnlySite } from '../../src/http/operations-site-kind.js';
import { siteRef } from '../../src/http/site.js';

const sender = actorRef(diodeSenderActor, 'send/diode-sender');

export const sendRole: RoleDefinition<typeof sendSchema> = {
  name: 'send',
  summary: 'quantum random collector and diode sender (qpool collect)',
  schema: sendSchema,
  demoConfig: { anu: { demo: { enabled: true, values: 64, interval_seconds: 20 } }, diode: { loopback: true } },
  // The ledger is read and written for keyed requests only; without them two collectors share nothing.
  claims: ({ anu, collect }) => ({
    stores: anu.keyed.enabled ? [{ path: ledgerPath(), what: 'keyed request ledger' }] : [],
    ports: collect.metrics_port === undefined ? [] : [{ host: collect.metrics_host, port: collect.metrics_port, option: 'collect.metrics_port' }],
  }),
  // The loopback diode hands values to the receiver's thread in this process: there must be one.
  checkHost(roles) {
    const send = roles.send as { diode?: { loopback?: boolean } } | undefined;
    const recv = roles.recv as { server?: { loopback?: boolean } } | undefined;
    if (send?.diode?.loopback !== true || recv?.server?.loopback === true) return [];
    return [{ path: ['send', 'diode', 'loopback'], message: 'needs a recv role with server.loopback true in the same host config' }];
  },
  async actors(config) {
    const collector: CollectorConfig = {
      sources: sourceSettings(config),
      timeoutMs: config.anu.timeout_seconds * 1000,
      sender,
      ledgerFile: ledgerPath(),
    };
    const senderConfig: DiodeSenderConfig = {
      ...(config.diode.loopback ? { loopbackReceiver: recvReceiver } : { command: [...(config.diode.send_command ?? [])] }),
      timeoutMs: config.diode.timeout_seconds * 1000,
      retryLimit: config.collect.retry_limit,
      retryDelayMs: 1000,
    };
    const { metrics_host: host, metrics_port: port } = config.collect;
    const operations = port === undefined ? [] : await frontSpecs({ role: 'send', threads: 1, config: { host, port, site: siteRef(operationsOnlySite, {}) } });
    return [
      actorSpec(diodeSenderActor, { ref: sender, role: 'send', config: senderConfig, links: config.diode.loopback ? [recvReceiver] : [] }),
      actorSpec(collectorActor, { ref: 'send/collector', role: 'send', config: collector, links: [sender] }),
      ...operations,
    ];
  },
};

function sourceSettings({ anu }: SendConfig): SourceSettings[] {
  const sources: SourceSettings[] = [];
  if (anu.keyed.enabled) {
    sources.push({
      source: 'keyed',
      url: anu.keyed.url,
      length: anu.keyed.length,
      size: anu.keyed.size,
      intervalMs: anu.keyed.interval_seconds * 1000,
      apiKey: anu.keyed.api_key ?? '',
    });
  }
  if (anu.legacy.enabled) {
    sources.push({ source: 'legacy', url: anu.legacy.url, length: anu.legacy.length, size: anu.legacy.size, intervalMs: anu.legacy.interval_seconds * 1000 });
  }
  if (anu.demo.enabled) sources.push({ source: 'demo', url: '', length: anu.demo.values, size: 128, intervalMs: anu.demo.interval_seconds * 1000 });
  return sources;
}
