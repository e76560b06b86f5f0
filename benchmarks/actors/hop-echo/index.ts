import { runActor } from '../../../src/actor/worker-entry.js';
import { hopEchoActor } from './kind.js';

runActor(hopEchoActor, {
  start() {
    return { api: { answerBatch: (paths) => Promise.resolve(paths.map(() => 'ok')) } };
  },
});
