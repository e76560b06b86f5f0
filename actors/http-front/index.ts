// The HTTP front of a role: a uWS app in this thread, with the routes of the role's site.
import { runActor } from '../../src/actor/worker-entry.js';
import { unexpectedMessage } from '../../src/actor/message.js';
import { Router } from '../../src/http/router.js';
import { HttpServer, urlFor } from '../../src/http/server.js';
import type { HttpFrontConfig } from './protocol.js';
import { mountMonitorSite } from './sites/monitor.js';
import { mountQpoolSite } from './sites/qpool.js';
import { mountSpeedtestSite } from './sites/speedtest.js';

runActor<HttpFrontConfig>({
  async start(context) {
    const { config } = context;
    const server = new HttpServer(context.onThreadExit);
    const requestLog = config.site.kind === 'speedtest' && config.site.logRequests ? { requestLog: context.log } : {};
    // qpool's API has no authentication: no CORS, or any web page could read values (see sites/qpool.ts).
    const router = new Router(server, { cors: config.site.kind !== 'qpool', log: context.log, ...requestLog });
    let api: object;
    switch (config.site.kind) {
      case 'monitor':
        api = await mountMonitorSite(router, server, context, config.site);
        break;
      case 'speedtest':
        await mountSpeedtestSite(router, context, config.site);
        api = {};
        break;
      case 'qpool':
        await mountQpoolSite(router, context, config.site);
        api = {};
        break;
      default:
        unexpectedMessage('http-front site', config.site);
    }
    router.finish();
    const port = await server.listen(config.host, config.port);
    return { api, ready: { urls: [urlFor(config.host, port)] }, stop: (graceMs) => server.drain(graceMs) };
  },
});
