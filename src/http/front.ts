// Starting a front: one uWS app in the actor's thread, its routes, the 404/405 fallbacks, listening,
// and draining on stop. Every front (the roles' http-front, test fixtures, benchmarks) starts here.
import type { ActorContext, RunningActor } from '../actor/actor.js';
import type { ActorApi } from '../actor/kind.js';
import { hostCheckFor } from './allowed-hosts.js';
import { machineNames } from '../net/machine-names.js';
import { Router, type RouterOptions } from './router.js';
import { HttpServer, type FrontLimits } from './server.js';
import { urlFor } from '../net/address.js';
import type { FrontTls } from './tls-material.js';

export interface FrontOptions {
  host: string;
  port: number;
  router?: RouterOptions;
  /** Host names answered besides loopback ones; set, the Host check applies off loopback too (allowed-hosts.ts). */
  allowedHosts?: readonly string[];
  /** Check the Host on any bind; off loopback, the machine's own names and addresses pass too (allowed-hosts.ts). */
  hostCheckEveryBind?: boolean;
  /** Streams and requests per client answered at once (server.ts); the defaults without. */
  limits?: FrontLimits;
  /** Speak HTTPS with this certificate (the site may replace it later: HttpServer.replaceCertificate). */
  tls?: FrontTls;
}

/** Mounts routes with `mount`, listens, and returns the running actor (serving what `mount` returns). */
export async function startFront<Api extends ActorApi, Config>(
  context: ActorContext<Config>,
  options: FrontOptions,
  mount: (router: Router, server: HttpServer) => Promise<Api | void> | Api | void,
): Promise<RunningActor<Api>> {
  const server = new HttpServer(context.onThreadExit, options.tls, options.limits);
  const allowedHost = hostCheckFor(options.host, {
    ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
    ...(options.hostCheckEveryBind === true ? { everyBind: { machineNames } } : {}),
  });
  const router = new Router(server, { log: context.log, ...options.router, ...(allowedHost === undefined ? {} : { allowedHost }) });
  const api = await mount(router, server);
  router.finish();
  const port = await server.listen(options.host, options.port);
  return { ...(api === undefined ? {} : { api }), ready: { urls: [urlFor(options.host, port, '/', server.scheme)] }, stop: (graceMs) => server.drain(graceMs) };
}
