import { declareActor, type NoApi } from '../../../src/actor/kind.js';
import type { CollectorConfig } from './protocol.js';

export const collectorActor = declareActor<NoApi, CollectorConfig>('collector', new URL('./index.js', import.meta.url));
