import { declareActor } from '../../../src/actor/kind.js';
import type { ResultsApi, ResultsConfig } from './protocol.js';

export const resultsActor = declareActor<ResultsApi, ResultsConfig>('results', new URL('./index.js', import.meta.url));
