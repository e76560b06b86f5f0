import { declareActor } from '../../../src/actor/kind.js';
import type { DiodeSenderApi, DiodeSenderConfig } from './protocol.js';

export const diodeSenderActor = declareActor<DiodeSenderApi, DiodeSenderConfig>('diode-sender', new URL('./index.js', import.meta.url));
