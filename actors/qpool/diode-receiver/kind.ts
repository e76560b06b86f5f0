import { declareActor } from '../../../src/actor/kind.js';
import type { DiodeLoopbackApi } from '../diode-sender/protocol.js';
import type { DiodeReceiverConfig } from './protocol.js';

export const diodeReceiverActor = declareActor<DiodeLoopbackApi, DiodeReceiverConfig>('diode-receiver', new URL('./index.js', import.meta.url));
