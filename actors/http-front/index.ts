// The HTTP front of a role: a uWS app in this thread serving the site its config names (loaded by
// module, src/http/site.ts), with the operations routes every front has (/healthz, /readyz,
// /metrics: src/http/operations.ts).
import { runActor } from '../../src/actor/worker-entry.js';
import { startFront } from '../../src/http/front.js';
import { mountOperations } from '../../src/http/operations.js';
import { loadSite } from '../../src/http/site.js';
import { HttpFigures } from '../../src/metrics/http-figures.js';
import { httpFrontActor } from './kind.js';

runActor(httpFrontActor, {
  async start(context) {
    const { host, port, site, tls, allowedHosts, hostCheckEveryBind } = context.config;
    const definition = await loadSite(site);
    const figures = context.metrics.enabled ? new HttpFigures() : undefined;
    const routerOptions = {
      cors: definition.cors,
      log: context.log,
      ...(figures === undefined ? {} : { figures }),
      ...(definition.logsRequests(site.config) ? { requestLog: context.log } : {}),
    };
    return startFront(
      context,
      {
        host,
        port,
        router: routerOptions,
        ...(allowedHosts === undefined ? {} : { allowedHosts }),
        ...(hostCheckEveryBind === undefined ? {} : { hostCheckEveryBind }),
        ...(tls === undefined ? {} : { tls }),
      },
      async (router, server) => {
        if (figures !== undefined)
          context.metrics.addSource(() => figures.families({ requestsInFlight: server.requestsInFlight, streamsOpen: server.streamsOpen }));
        const metricsAccess = definition.metricsAccess?.(site.config, context.log);
        mountOperations(router, context, metricsAccess === undefined ? {} : { metricsAccess });
        await definition.mount({ router, server, actor: context, site: site.config });
      },
    );
  },
});
