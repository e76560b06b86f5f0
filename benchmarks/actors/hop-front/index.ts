// Two routes that differ only in where the answer is made: /direct in this thread, /hop in the
// hop-echo actor, reached through a batched cross-thread call. /value answers a constant value the
// way qpool answers /api/random/hex, headers and all: what a value costs the front without a take.
import { batched } from '../../../actors/qpool/site/batch.js';
import { runActor } from '../../../src/actor/worker-entry.js';
import { startFront } from '../../../src/http/front.js';
import { ValueBatchBuilder } from '../../../actors/qpool/values/batch.js';
import { answerValue } from '../../../actors/qpool/site/value-answer.js';
import { hopFrontActor } from './kind.js';

runActor(hopFrontActor, {
  start(context) {
    const { host, port, echo: echoRef } = context.config;
    const echo = context.peer(echoRef);
    const answer = batched<string, string>((paths) => echo.call((api) => api.answerBatch(paths)));
    const builder = new ValueBatchBuilder(1);
    builder.push(Buffer.alloc(128, 0xa5), Date.parse('2026-11-25T12:00:00Z'), 'keyed');
    const value = { values: builder.finish(), index: 0, available: 99_999 };
    return startFront(context, { host, port }, (router) => {
      router
        .get('/direct', (_request, reply) => reply.text(200, 'ok'))
        .get('/value', (_request, reply) => answerValue(reply, 'hex', value))
        .get('/hop', async (request, reply) => reply.text(200, await answer(request.path)));
    });
  },
});
