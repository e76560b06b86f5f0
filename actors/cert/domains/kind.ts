import { declareActor } from '../../../src/actor/kind.js';
import { declareTopic } from '../../../src/actor/topic.js';
import type { DomainsApi, DomainsConfig, ReplicaMessage } from './protocol.js';

export const domainsActor = declareActor<DomainsApi, DomainsConfig>('domains', new URL('./index.js', import.meta.url));

/** The domains and their material, one key per domain name, pushed to every certhub front. */
export const domainReplicaTopic = declareTopic<ReplicaMessage>('cert/domains', { keptBy: 'publisher' });
