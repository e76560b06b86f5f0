import { runActor } from '../../../src/actor/worker-entry.js';
import type { HopEchoApi } from './protocol.js';

runActor({
  start() {
    const api: HopEchoApi = { answerBatch: (paths) => Promise.resolve(paths.map(() => 'ok')) };
    return { api };
  },
});
