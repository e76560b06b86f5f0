import { declareActor, type NoApi } from '../../src/actor/kind.js';
import type { HttpFrontConfig } from './protocol.js';

export const httpFrontActor = declareActor<NoApi, HttpFrontConfig>('http-front');
