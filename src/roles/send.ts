// The send role (qpool collect): a collector polling ANU and a diode sender pushing its batches
// across the one-way diode. Nothing is kept on disk on this side but the time of the last keyed request.
import { actorEntry, type ActorSpec } from '../actor/spec.js';
import { sendSchema, type SendConfig } from '../config/qpool.js';
import type { CollectorConfig, SourceSettings } from '../../actors/collector/protocol.js';
import { ledgerPath } from '../../actors/collector/ledger.js';
import type { DiodeSenderConfig } from '../../actors/diode-sender/protocol.js';
import type { RoleDefinition } from './role.js';

/** The recv role's diode receiver, which a loopback diode hands batches to. */
export const loopbackReceiverName = 'recv/diode-receiver';

export const sendRole: RoleDefinition<typeof sendSchema> = {
  name: 'send',
  summary: 'quantum random collector and diode sender (qpool collect)',
  schema: sendSchema,
  demoConfig: { anu: { demo: { enabled: true, values: 64, interval_seconds: 20 } }, diode: { loopback: true } },
  // The ledger is read and written for keyed requests only; without them two collectors share nothing.
  claims: ({ anu }) => ({ stores: anu.keyed.enabled ? [{ path: ledgerPath(), what: 'keyed request ledger' }] : [] }),
  actors(config) {
    const collector: CollectorConfig = {
      sources: sourceSettings(config),
      timeoutMs: config.anu.timeout_seconds * 1000,
      sender: 'send/diode-sender',
      ledgerFile: ledgerPath(),
    };
    const sender: DiodeSenderConfig = {
      ...(config.diode.loopback ? { loopbackReceiver: loopbackReceiverName } : { command: [...(config.diode.send_command ?? [])] }),
      timeoutMs: config.diode.timeout_seconds * 1000,
      retryLimit: config.collect.retry_limit,
      retryDelayMs: 1000,
    };
    const common = { instance: 1, role: 'send', front: false } as const;
    return Promise.resolve([
      { ...common, name: 'send/diode-sender', kind: 'diode-sender', entry: actorEntry('diode-sender'), config: sender, links: config.diode.loopback ? [loopbackReceiverName] : [] },
      { ...common, name: 'send/collector', kind: 'collector', entry: actorEntry('collector'), config: collector, links: ['send/diode-sender'] },
    ] satisfies ActorSpec[]);
  },
};

function sourceSettings({ anu }: SendConfig): SourceSettings[] {
  const sources: SourceSettings[] = [];
  if (anu.keyed.enabled) {
    sources.push({ source: 'keyed', url: anu.keyed.url, length: anu.keyed.length, size: anu.keyed.size, intervalMs: anu.keyed.interval_seconds * 1000, apiKey: anu.keyed.api_key ?? '' });
  }
  if (anu.legacy.enabled) {
    sources.push({ source: 'legacy', url: anu.legacy.url, length: anu.legacy.length, size: anu.legacy.size, intervalMs: anu.legacy.interval_seconds * 1000 });
  }
  if (anu.demo.enabled) sources.push({ source: 'demo', url: '', length: anu.demo.values, size: 128, intervalMs: anu.demo.interval_seconds * 1000 });
  return sources;
}
