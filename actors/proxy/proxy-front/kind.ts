import { declareActor } from '../../../src/actor/kind.js';
import { declareTopic } from '../../../src/actor/topic.js';
import type { ProxyFrontApi, ProxyFrontConfig, ProxyRoute } from './protocol.js';

export const proxyFrontActor = declareActor<ProxyFrontApi, ProxyFrontConfig>('proxy-front', new URL('./index.js', import.meta.url));

/** The routes after a reload (SIGHUP): each front serves these from then on, and a restarted one too. */
export const proxyRoutesTopic = declareTopic<ProxyRoute[]>('proxy/routes');
