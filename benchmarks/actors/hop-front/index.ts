// Two routes that differ only in where the answer is made: /direct in this thread, /hop in the
// hop-echo actor, reached through a batched cross-thread call.
import { batched } from '../../../src/actor/batch.js';
import { runActor } from '../../../src/actor/worker-entry.js';
import { startFront } from '../../../src/http/front.js';
import { hopFrontActor } from './kind.js';

runActor(hopFrontActor, {
  start(context) {
    const { host, port, echo: echoRef } = context.config;
    const echo = context.peer(echoRef);
    const answer = batched<string, string>((paths) => echo.call((api) => api.answerBatch(paths)));
    return startFront(context, { host, port }, (router) => {
      router
        .get('/direct', (_request, reply) => reply.text(200, 'ok'))
        .get('/hop', async (request, reply) => reply.text(200, await answer(request.path)));
    });
  },
});
