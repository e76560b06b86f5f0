import { declareActor } from '../../../src/actor/kind.js';
import type { HopEchoApi } from './protocol.js';

export const hopEchoActor = declareActor<HopEchoApi, Record<string, never>>('hop-echo', new URL('./index.js', import.meta.url));
