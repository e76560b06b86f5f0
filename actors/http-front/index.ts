// The HTTP front of a role: a uWS app in this thread serving the site its config names.
import { runActor } from '../../src/actor/worker-entry.js';
import { startFront } from '../../src/http/front.js';
import { httpFrontActor } from './kind.js';
import { siteDefinition } from './sites.js';

runActor(httpFrontActor, {
  start(context) {
    const { host, port, site, tls } = context.config;
    const definition = siteDefinition(site);
    const routerOptions = { cors: definition.cors, log: context.log, ...(definition.logsRequests(site) ? { requestLog: context.log } : {}) };
    return startFront(context, { host, port, router: routerOptions, ...(tls === undefined ? {} : { tls }) }, (router, server) => definition.mount({ router, server, actor: context, site }));
  },
});
