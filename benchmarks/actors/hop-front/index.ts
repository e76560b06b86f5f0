// Two routes that differ only in where the answer is made: /direct in this thread, /hop in the
// hop-echo actor, reached through a batched cross-thread call.
import { batched } from '../../../src/actor/batch.js';
import { runActor } from '../../../src/actor/worker-entry.js';
import { Router } from '../../../src/http/router.js';
import { HttpServer, urlFor } from '../../../src/http/server.js';
import type { HopEchoApi } from '../hop-echo/protocol.js';

interface HopFrontConfig {
  host: string;
  port: number;
}

runActor<HopFrontConfig>({
  async start(context) {
    const server = new HttpServer(context.onThreadExit);
    const router = new Router(server);
    const echo = context.peer<HopEchoApi>('hop-echo');
    const answer = batched<string, string>((paths) => echo.call((api) => api.answerBatch(paths)));
    router
      .get('/direct', (_request, reply) => reply.text(200, 'ok'))
      .get('/hop', async (request, reply) => reply.text(200, await answer(request.path)));
    router.finish();
    const port = await server.listen(context.config.host, context.config.port);
    return { ready: { urls: [urlFor(context.config.host, port)] }, stop: (graceMs) => server.drain(graceMs) };
  },
});
