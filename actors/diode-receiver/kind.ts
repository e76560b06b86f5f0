import { declareActor } from '../../src/actor/kind.js';
import type { DiodeLoopbackApi } from '../diode-sender/protocol.js';
import type { DiodeReceiverConfig } from './protocol.js';

export const diodeReceiverActor = declareActor<DiodeLoopbackApi, DiodeReceiverConfig>('diode-receiver');
