import { declareActor, type NoApi } from '../actor/kind.js';
import type { HttpFrontConfig } from './front-config.js';

export const httpFrontActor = declareActor<NoApi, HttpFrontConfig>('http-front', new URL('../../actors/http-front/index.js', import.meta.url));
