import { declareActor } from '../../../src/actor/kind.js';
import type { AcmeApi, AcmeConfig } from './protocol.js';

export const acmeActor = declareActor<AcmeApi, AcmeConfig>('acme', new URL('./index.js', import.meta.url));
