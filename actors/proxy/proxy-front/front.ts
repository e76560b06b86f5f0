// One TLS front thread of the proxy role: its listener (tls-listener.ts) presents each routed name's
// certificate (chosen by SNI); it forwards that name's requests and WebSocket upgrades to its backend,
// and checks the material files for renewals. The listener has no certificate of its own, so a
// handshake naming no route (or no name at all) fails: an unknown name is refused, not answered with
// another name's certificate.
import { us_listen_socket_close, us_socket_local_port, type HttpResponse, type TemplatedApp, type us_listen_socket } from 'uWebSockets.js';
import type { ActorContext, RunningActor } from '../../../src/actor/actor.js';
import { listenOn } from '../../../src/http/listen.js';
import { plainApp } from '../../../src/http/uws-app.js';
import { ProxyFigures } from './figures.js';
import { forwardRequest } from './forward.js';
import { AccessLog } from './access-log.js';
import { errorPage, hostName, httpsRedirect, pathAndQuery } from './logic.js';
import { matchServerName } from './server-names.js';
import type { MountedName } from './tls-listener.js';
import { proxyRoutesTopic } from './kind.js';
import type { ProxyFrontApi, ProxyFrontConfig } from './protocol.js';
import { RouteTable } from './route-table.js';
import { ServedCertificates } from './served-certificates.js';
import { startSummary } from './start-summary.js';
import { TlsListener } from './tls-listener.js';
import { webSocketRelay } from './websocket.js';
import { WebSocketLimits } from './websocket-limits.js';
import { formatHostPort } from '../../../src/net/address.js';
import { canonicalAddress } from '../../../src/http/rate-limit.js';

export async function startProxyFront(context: ActorContext<ProxyFrontConfig>): Promise<RunningActor<ProxyFrontApi>> {
  const { config, log } = context;
  // Counted only when the host config has metrics on; the role's operations front serves them.
  const figures = context.metrics.enabled ? new ProxyFigures() : undefined;
  const trustedProxies = new Set(config.trustedProxies.map(canonicalAddress));
  const routes = new RouteTable(
    {
      backendConnections: config.backendConnections,
      backendTimeoutMs: config.backendTimeoutMs,
      limits: config.limits,
      trustedProxies,
      log,
      ...(figures === undefined ? {} : { figures }),
    },
    config.routes,
  );
  const accessLog = config.accessLog === undefined ? undefined : new AccessLog(config.accessLog.path, config.accessLog.format, log);
  context.onThreadExit(() => accessLog?.close());
  const forwarding = { log, ...(accessLog === undefined ? {} : { accessLog }) };
  const webSocketLimits = new WebSocketLimits(config.limits.webSocket);
  context.onThreadExit(() => webSocketLimits.close());

  let inFlight = 0;
  let idle: (() => void) | undefined;
  const begin = () => {
    inFlight++;
    let settled = false;
    return () => {
      if (settled) return;
      settled = true;
      if (--inFlight === 0) idle?.();
    };
  };

  const mount = (app: TemplatedApp, { domain, serverName, names }: MountedName, webSocketClosed: () => void) => {
    const relay = webSocketRelay({
      domain,
      route: () => routes.get(domain),
      log,
      limits: webSocketLimits,
      maxBufferedBytes: config.limits.webSocket.maxBufferedBytes,
      misdirected,
    });
    app
      .domain(serverName)
      .any('/*', (res, req) => {
        const route = routes.get(domain);
        // No route: a reload took the name out while this connection was open.
        if (route === undefined) return misdirected(res, domain);
        const host = req.getHeader('host');
        // The Host as the client sent it is most often the name itself: hostName's lower-casing and
        // port-trimming, and the match against the certificate's other names, only when it is not.
        if (host !== '' && host !== domain && matchServerName(hostName(host), names) === undefined) {
          route.figures?.answered(421);
          return misdirected(res, domain);
        }
        forwardRequest(res, req, route, forwarding, begin());
      })
      .ws('/*', {
        ...relay,
        close: (ws, code, message) => {
          relay.close?.(ws, code, message);
          webSocketClosed();
        },
      });
  };
  const listener = new TlsListener({
    materialDir: config.materialDir,
    prepare: (app) => {
      if (figures === undefined) return;
      app.filter((_res, change) => figures.tlsConnection(change));
      // Called (synchronously, in the handshake) only for a name with no certificate: the handshake then fails.
      app.missingServerName(() => figures.unservedName());
    },
    mount,
  });
  const apps: TemplatedApp[] = [];
  context.onThreadExit(() => {
    listener.close();
    apps.forEach((one) => one.close());
  });
  const certificates = new ServedCertificates(listener, config.materialDir, routes.domains, log);
  if (figures !== undefined) context.metrics.addSource(() => figures.families(certificates.figures()));
  await certificates.reloadAll();
  const checks = setInterval(() => void certificates.reloadAll(), config.materialCheckMs);

  const listening: us_listen_socket[] = [];
  const port = await listener.listen(config.host, config.port);
  const urls = [`https://${formatHostPort(shownHost(config.host), port)}/`];
  if (config.redirectPort !== undefined) {
    // Every name a served certificate covers is sent on, not only the route's own.
    const redirect = redirectApp({ has: (name) => routes.has(name) || certificates.servesName(name) }, port);
    apps.push(redirect);
    const redirectSocket = await listenOn(redirect, config.host, config.redirectPort);
    listening.push(redirectSocket);
    const redirectPort = us_socket_local_port(redirectSocket);
    urls.push(`http://${formatHostPort(shownHost(config.host), redirectPort)}/`);
  }
  if (config.describesStart) {
    log.info(
      startSummary(
        config.routes.map(({ domain, backends }) => ({ domain, backend: backends.join(', '), served: certificates.isServed(domain) })),
        urls,
        config.materialDir,
      ),
    );
  }

  // A reload (SIGHUP) hands every front the new routes; a front that restarts later gets them at once.
  context.subscribe(proxyRoutesTopic, (next) => {
    const { added, removed, changed } = routes.replace(next);
    for (const domain of removed) void certificates.remove(domain);
    for (const domain of added) certificates.add(domain).catch((error: unknown) => log.error('certificate load failed', { domain, error: String(error) }));
    const parts = [
      ...(added.length > 0 ? [`added ${added.join(', ')}`] : []),
      ...(removed.length > 0 ? [`removed ${removed.join(', ')}`] : []),
      ...(changed.length > 0 ? [`changed ${changed.join(', ')}`] : []),
    ];
    if (parts.length > 0) log.info(`routes reloaded: ${parts.join('; ')}`);
  });

  return {
    api: {
      reload: (domain) => certificates.reload(domain),
    },
    ready: { urls },
    stop: async (graceMs) => {
      clearInterval(checks);
      listener.stopListening();
      for (const socket of listening.splice(0)) us_listen_socket_close(socket);
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, graceMs);
          idle = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      listener.close();
      apps.forEach((one) => one.close());
      routes.close();
      webSocketLimits.close();
    },
  };
}

/** RFC 9110 section 15.5.20: the connection was made for another name than the one asked for. */
function misdirected(res: HttpResponse, domain: string): void {
  res
    .writeStatus('421 Misdirected Request')
    .writeHeader('content-type', 'text/html; charset=utf-8')
    .end(errorPage(421, 'Misdirected Request', `This connection serves ${domain} only; open a new connection for another name.`));
}

/** The plain listener: a served name's requests are sent to HTTPS; any other name gets 404. */
function redirectApp(domains: { has(domain: string): boolean }, httpsPort: number): TemplatedApp {
  return plainApp().any('/*', (res, req) => {
    const location = httpsRedirect(req.getHeader('host'), pathAndQuery(req.getUrl(), req.getQuery()), httpsPort, domains);
    if (location === undefined) {
      res
        .writeStatus('404 Not Found')
        .writeHeader('content-type', 'text/html; charset=utf-8')
        .end(errorPage(404, 'Not Found', 'No site of this name is served here.'));
      return;
    }
    res.writeStatus('308 Permanent Redirect').writeHeader('location', location).end();
  });
}

function shownHost(host: string): string {
  return host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
}
