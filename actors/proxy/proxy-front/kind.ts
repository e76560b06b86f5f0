import { declareActor } from '../../../src/actor/kind.js';
import type { ProxyFrontApi, ProxyFrontConfig } from './protocol.js';

export const proxyFrontActor = declareActor<ProxyFrontApi, ProxyFrontConfig>('proxy-front', new URL('./index.js', import.meta.url));
