import { declareActor, type NoApi } from '../../../src/actor/kind.js';
import type { HopFrontConfig } from './protocol.js';

export const hopFrontActor = declareActor<NoApi, HopFrontConfig>('hop-front', new URL('./index.js', import.meta.url));
